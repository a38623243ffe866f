#include "attnlab/cli/seq2seq_data.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/pair_encoding.hpp"

namespace attnlab::cli {

using json = nlohmann::json;

namespace {

// A fixed, seeded sample of `n` items of a list (order of the list kept).
template <class T>
std::vector<T> sample_of(const std::vector<T>& v, size_t n, uint64_t seed) {
  if (n == 0 || n >= v.size()) return v;
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  Rng r(seed);
  r.shuffle(idx);
  idx.resize(n);
  std::sort(idx.begin(), idx.end());
  std::vector<T> out;
  for (size_t i : idx) out.push_back(v[i]);
  return out;
}

data::Pron strip_pron(const data::Pron& p) {
  data::Pron out;
  for (const auto& ph : p) out.push_back(data::strip_stress(ph));
  return out;
}
std::vector<data::Pron> strip_prons(const std::vector<data::Pron>& ps) {
  std::vector<data::Pron> out;
  for (const auto& p : ps) out.push_back(strip_pron(p));
  return out;
}

const char* kTasks = "g2p, dates or seq2seq";

data::TsvPairs read_pairs(const std::string& path, bool skip_bad, const char* flag, bool extra_columns = false) {
  try {
    data::TsvOptions o;
    o.skip_bad = skip_bad;
    o.extra_columns = extra_columns;
    return data::load_tsv_pairs(path, o);
  } catch (const Error& e) {
    throw Error(std::string(flag) + ": " + e.what());
  }
}

std::string count_str(size_t n) {
  std::string s = std::to_string(n);
  for (long i = long(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

}  // namespace

// ---------------------------------------------------------------- flags
std::vector<FlagSpec> seq2seq_data_flags(const std::string& task) {
  if (task == "g2p")
    return {{"data", "PATH", data::kCmudictRelPath, "CMUdict text (cmudict-0.7b format)"},
            {"split-seed", "N", "1234", "seed of the train/valid/test split (90/5/5 by word)"},
            {"stress", "", "", "keep CMUdict's stress digits (vowels as AH0/AH1/AH2)"},
            {"max-train", "N", "0", "use only a seeded sample of N training pairs (0 = all)"},
            {"val-size", "N", "1000", "validation words used during training (greedy WER)"},
            {"distill", "PATH", "", "sequence-level distillation (Kim and Rush 2016): each training word "
                                    "listed in PATH, a predictions file of 'attnlab eval --split train "
                                    "--predictions', is trained on its output there (column "
                                    "--distill-column) instead of its dictionary pronunciations"},
            {"distill-column", "NAME", "ensemble", "the column of --distill's file (greedy, beam or ensemble)"},
            {"distill-refs", "", "", "with --distill: keep the dictionary pronunciations too (a word's "
                                     "output is added unless it is one of them)"}};
  if (task == "dates")
    return {{"split-seed", "N", "1234", "seed of the train/valid/test split (90/5/5 by date)"},
            {"max-train", "N", "0", "use only a seeded sample of N training pairs (0 = all)"},
            {"val-size", "N", "1000", "validation pairs used during training (exact-match error)"}};
  if (task == "seq2seq")
    return {{"train", "PATH", "", "training pairs: UTF-8 text, one 'source<TAB>target' per line (required)"},
            {"valid", "PATH", "", "validation pairs (same format); default: a part of --train by --split"},
            {"test", "PATH", "", "test pairs, scored at the end (same format)"},
            {"split", "T/V/T", "", "split --train by source text into train/valid/test, e.g. 90/5/5 "
                                   "(the default when neither --valid nor --test is given)"},
            {"split-seed", "N", "1234", "seed of --split"},
            {"extra-columns", "", "", "allow and ignore columns after the second (e.g. an attribution "
                                      "column); without it such a line is malformed"},
            {"src-tokens", "char|word|wordpunct", "char",
             "source tokens: characters (Unicode code points), whitespace-separated words, or "
             "wordpunct: lowercased words with each punctuation mark a token of its own (numbers "
             "kept whole, 3.5 and don't stay one word)"},
            {"tgt-tokens", "char|word|wordpunct", "char", "target tokens (outputs are joined with '' "
                                                          "for char, ' ' for word and wordpunct)"},
            {"min-count", "N", "1", "tokens seen fewer times in the training pairs become <unk>"},
            {"skip-bad", "", "", "skip malformed lines (no tab, empty side, invalid UTF-8) and count "
                                 "them instead of stopping at the first"},
            {"max-src-len", "N", "0", "longest source in tokens (0 = the longest training source + 25%); "
                                      "longer training pairs are left out"},
            {"max-tgt-len", "N", "0", "longest target in tokens (0 = the longest training target + 25%)"},
            {"max-train", "N", "0", "use only a seeded sample of N training pairs (0 = all)"},
            {"val-size", "N", "1000", "validation pairs used during training (exact-match error)"}};
  throw UsageError("unknown seq2seq task '" + task + "' (expected " + kTasks + ")");
}

std::vector<FlagSpec> seq2seq_train_flags(FlagSpec arch, const std::string& task,
                                          const std::vector<FlagSpec>& model,
                                          const TrainFlagDefaults& d) {
  std::vector<FlagSpec> f = {std::move(arch)};
  for (FlagSpec& x : seq2seq_data_flags(task)) f.push_back(std::move(x));
  f.insert(f.end(), model.begin(), model.end());
  return with_common_train_flags(f, d);
}

void reject_foreign_data_flags(const std::string& task, const std::vector<std::string>& argv) {
  const std::vector<FlagSpec> own = seq2seq_data_flags(task);
  for (const std::string& t : {std::string("g2p"), std::string("dates"), std::string("seq2seq")}) {
    if (t == task) continue;
    for (const FlagSpec& f : seq2seq_data_flags(t)) {
      bool mine = false;
      for (const FlagSpec& o : own) mine = mine || o.name == f.name;
      if (mine) continue;
      for (const std::string& a : argv)
        if (a == "--" + f.name || a.rfind("--" + f.name + "=", 0) == 0) {
          std::string why = "'attnlab train " + task + "' takes no --" + f.name;
          if (task == "dates")
            why += ": the dates task generates its own data (every day 1950-2049 in 20 formats)";
          else if (task == "g2p")
            why += ": the g2p task reads CMUdict (--data)";
          else
            why += ": it reads your pairs from --train (and --valid/--test or --split)";
          if (task != "seq2seq") why += "; to train on your own pairs use 'attnlab train seq2seq --train FILE'";
          throw UsageError(why);
        }
    }
  }
}

void check_data_files(const Args& a, const std::string& task) {
  const std::vector<const char*> flags =
      task == "seq2seq" ? std::vector<const char*>{"train", "valid", "test"}
      : task == "g2p"   ? std::vector<const char*>{"data", "distill"}
                        : std::vector<const char*>{};
  for (const char* f : flags) {
    if (!a.given(f) || a.get(f).empty()) continue;
    std::ifstream in(a.get(f), std::ios::binary);
    if (!in) throw Error(std::string("--") + f + " " + a.get(f) + ": cannot open the file (does it exist?)");
  }
}

// ---------------------------------------------------------------- scores
void PairScore::add(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  em.add(hyp, ref);
  edits += eval::edit_distance(hyp, ref);
  ref_tokens += ref.size();
  bleu.add(hyp, ref);
}

void PairScore::add_text(const std::string& hyp, const std::string& ref) {
  bleu_zh.add(eval::tokenize_zh(hyp), eval::tokenize_zh(ref));
  chrf.add(hyp, ref);
}

json PairScore::to_json() const {
  if (pairs() == 0) return {{"pairs", 0}};
  const eval::BleuResult b = bleu.result();
  return {{"pairs", pairs()},
          {"exact_match", em.accuracy()},
          {"token_error_rate", token_error_rate()},
          {"bleu", b.score},
          {"bleu_precisions", b.precisions},
          {"bleu_bp", b.bp},
          {"bleu_zh", bleu_zh.result().score},
          {"chrf", chrf.score()},
          {"too_long", too_long},
          {"seconds", seconds}};
}

std::string pair_score_line(const PairScore& s) {
  if (s.pairs() == 0) return "n/a (no pairs to score)";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "exact match %.2f%%  token error rate %.2f%%  BLEU %.2f  BLEU-zh %.2f  chrF2 %.2f  (%s pairs",
                100 * s.em.accuracy(), 100 * s.token_error_rate(), s.bleu.result().score,
                s.bleu_zh.result().score, s.chrf.score(), count_str(s.pairs()).c_str());
  std::string line = buf;
  if (s.too_long) line += ", " + count_str(s.too_long) + " over the length limit";
  std::snprintf(buf, sizeof buf, ", %.1f s)", s.seconds);
  return line + buf;
}

PairScore score_pairs(const models::Translator& m, const std::vector<data::TextPair>& pairs,
                      const models::DecodeOptions& o, size_t limit) {
  PairScore s;
  const auto t0 = std::chrono::steady_clock::now();
  const json cfg = json::parse(m.config_json());
  const std::string tt = cfg.value("tgt_tokens", std::string("char"));
  const data::TokenUnit unit = data::parse_token_unit(tt.empty() ? "char" : tt);
  const size_t n = limit ? std::min(limit, pairs.size()) : pairs.size();
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> hyp;
    try {
      hyp = m.translate(pairs[i].src, o).tokens;
    } catch (const Error&) {
      // an input over the length limit (or empty after tokenizing): nothing to say
      ++s.too_long;
    }
    s.add(hyp, data::split_tokens(pairs[i].tgt, unit));
    s.add_text(data::join_tokens(hyp, unit), pairs[i].tgt);
  }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

namespace {
// decoding for bulk scoring: no per-head attention maps
models::DecodeOptions scoring_options(size_t beam, float alpha, models::DecodePrecision precision) {
  models::DecodeOptions o;
  o.precision = precision;
  o.beam = beam;
  o.length_alpha = alpha;
  o.head_maps = false;
  return o;
}
}  // namespace

namespace {
// The words of the split (the first `limit`, 0 = all) scored as eval_g2p scores them; output(word)
// gives each word's output, or none when the word is over `max_len` letters.
template <class Output>
G2PEval score_g2p_words(const data::CmuDict& dict, const std::vector<size_t>& entries, size_t limit,
                        size_t max_len, Output output) {
  G2PEval e;
  const auto t0 = std::chrono::steady_clock::now();
  const size_t n = limit ? std::min(limit, entries.size()) : entries.size();
  for (size_t i = 0; i < n; ++i) {
    const data::CmuEntry& en = dict.entries[entries[i]];
    data::Pron hyp;
    if (en.word.size() <= max_len) hyp = output(en.word);
    e.scored.push_back(e.score.add(hyp, en.prons));
    if (dict.keep_stress) e.stripped.add(strip_pron(hyp), strip_prons(en.prons));
    e.outputs.push_back(std::move(hyp));
  }
  e.words = n;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}
}  // namespace

G2PEval eval_g2p(const models::Translator& m, const data::CmuDict& dict, const std::vector<size_t>& entries,
                 size_t limit, size_t beam, float alpha, models::DecodePrecision precision) {
  const models::DecodeOptions o = scoring_options(beam, alpha, precision);
  return score_g2p_words(dict, entries, limit, m.max_src_len(),
                         [&](const std::string& word) { return m.translate(word, o).tokens; });
}

G2PEval eval_g2p_ensemble(const models::Translator& a, const models::Translator& b,
                          const data::CmuDict& dict, const std::vector<size_t>& entries, size_t limit,
                          size_t beam, float alpha, models::DecodePrecision precision) {
  if (a.tgt_vocab().tokens() != b.tgt_vocab().tokens())
    throw Error("the two models' output vocabularies differ: an ensemble needs models trained on the "
                "same phoneme set (the same --stress setting)");
  models::DecodeOptions o = scoring_options(std::max<size_t>(beam, 1), alpha, precision);
  o.n_best = beam > 1;
  std::vector<float> logp, attn;
  std::vector<std::vector<int>> cand;
  auto add = [&](const std::vector<int>& ids) {  // each output once
    if (std::find(cand.begin(), cand.end(), ids) == cand.end()) cand.push_back(ids);
  };
  return score_g2p_words(dict, entries, limit, std::min(a.max_src_len(), b.max_src_len()), [&](const std::string& word) {
    // the candidates: each model's hypotheses
    cand.clear();
    for (const models::Translator* m : {&a, &b}) {
      const models::Translation t = m->translate(word, o);
      add(t.ids);
      for (const models::Translation& h : t.n_best) add(h.ids);
    }
    std::vector<size_t> idx(cand.size());
    for (size_t k = 0; k < idx.size(); ++k) idx[k] = k;
    // each scored by both: teacher-forced log-probability, </s> included, summed
    std::vector<double> total(cand.size(), 0.0);
    for (const models::Translator* m : {&a, &b}) {
      const std::vector<std::vector<int>> src(cand.size(), m->encode_input(word));
      const models::Seq2SeqBatch batch = models::make_seq2seq_batch(src, cand, idx);
      m->score_batch(batch, logp, attn);
      for (size_t k = 0; k < cand.size(); ++k)
        for (size_t t = 0; t < batch.tgt_len[k]; ++t) total[k] += logp[k * batch.T + t];
    }
    const size_t best = size_t(std::max_element(total.begin(), total.end()) - total.begin());
    data::Pron hyp;
    for (int id : cand[best]) hyp.push_back(a.tgt_vocab().token(id));
    return hyp;
  });
}

DateEval eval_dates(const models::Translator& m, const std::vector<data::DatePair>& pairs, size_t limit,
                    size_t beam, float alpha, models::DecodePrecision precision) {
  DateEval e;
  const auto t0 = std::chrono::steady_clock::now();
  const models::DecodeOptions o = scoring_options(beam, alpha, precision);
  const size_t n = limit ? std::min(limit, pairs.size()) : pairs.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string out = m.translate(pairs[i].input, o).text;
    e.em.add(out, pairs[i].output, size_t(pairs[i].format));
  }
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

// ---------------------------------------------------------------- loading
namespace {

// --distill: the outputs of a predictions file (attnlab eval --split train --predictions) as the
// training targets of the words it lists. Only training words may appear (a validation or test
// word would leak into training); each phone must be in the phoneme set; an empty output (a word
// over the model's length limit) leaves the word's pronunciations as they are. `dict` is the
// training copy of the dictionary: the listed words' pronunciations are replaced, or with `keep`
// the output is added unless it is one of them. Returns the counts for the run's notes and the
// FNV-1a hash of the file (the run id records it: a resumed run must read the same targets).
struct DistillStats {
  size_t words = 0, changed = 0, empty = 0;
  std::string hash;
};
DistillStats apply_distill(const std::string& path, const std::string& column, bool keep,
                           data::CmuDict& dict, const std::vector<size_t>& train, const data::Vocab& tv) {
  const std::string text = read_input_file(path);
  DistillStats st;
  st.hash = fnv1a64_hex(text.data(), text.size());
  std::vector<char> is_train(dict.entries.size(), 0), seen(dict.entries.size(), 0);
  for (size_t i : train) is_train[i] = 1;
  auto fields = [](const std::string& line) {
    std::vector<std::string> f;
    size_t b = 0;
    for (size_t e; (e = line.find('\t', b)) != std::string::npos; b = e + 1) f.push_back(line.substr(b, e - b));
    f.push_back(line.substr(b));
    return f;
  };
  const std::string where = "--distill " + path;
  size_t pos = 0, lineno = 0, col = 0, ncols = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> f = fields(line);
    if (lineno == 1) {  // the header: word, references, then per decoder its columns
      if (f.empty() || f[0] != "word")
        throw Error(where + ": not a predictions file (its first line should start with 'word<TAB>'; write one "
                            "with 'attnlab eval --model M --split train --predictions PATH')");
      ncols = f.size();
      for (col = 1; col < f.size() && f[col] != column; ++col) {}
      if (col == f.size()) {
        std::string have;
        for (size_t i = 2; i < f.size(); i += 3) have += (have.empty() ? "" : ", ") + f[i];
        throw Error(where + ": no column '" + column + "' (--distill-column; this file has " +
                    (have.empty() ? std::string("none") : have) + ")");
      }
      continue;
    }
    if (line.empty()) continue;
    const std::string at = where + " line " + std::to_string(lineno);
    if (f.size() != ncols)
      throw Error(at + ": " + std::to_string(f.size()) + " columns, the header has " + std::to_string(ncols));
    const long e = dict.find(f[0]);
    if (e < 0) throw Error(at + ": '" + f[0] + "' is not a word of the dictionary");
    if (!is_train[size_t(e)])
      throw Error(at + ": '" + f[0] + "' is not a training word of this split (a validation or test word's "
                                      "output would leak into training; write the file with --split train "
                                      "and the same --split-seed)");
    if (seen[size_t(e)]) throw Error(at + ": '" + f[0] + "' appears twice");
    seen[size_t(e)] = 1;
    ++st.words;
    const data::Pron out = data::split_tokens(f[col], data::TokenUnit::Word);
    if (out.empty()) {
      ++st.empty;
      continue;
    }
    try {
      data::encode_pron(tv, out);
    } catch (const Error& x) {
      throw Error(at + ": " + x.what());
    }
    auto& prons = dict.entries[size_t(e)].prons;
    const bool known = std::find(prons.begin(), prons.end(), out) != prons.end();
    if (!known) ++st.changed;
    if (!keep) prons = {out};
    else if (!known) prons.push_back(out);
  }
  if (lineno == 0) throw Error(where + ": the file is empty");
  return st;
}

void load_g2p(const Args& a, Seq2SeqData& d, size_t val_size) {
  const bool stress = a.flag("stress");
  const uint64_t split_seed = a.u64("split-seed");
  data::CmuOptions opt;
  opt.keep_stress = stress;
  auto dict = std::make_shared<data::CmuDict>(data::load_cmudict(a.get("data"), opt));
  const data::CmuSplit split = data::split_cmudict(*dict, split_seed);
  d.sv = data::grapheme_vocab();
  d.tv = data::phoneme_vocab(stress);
  d.meta["data"] = "cmudict";
  d.meta["stress"] = stress ? "1" : "0";
  d.meta["data_stats"] = data::cmudict_stats_json(data::cmudict_stats(*dict, split), -1);
  const data::CmuDict* train_dict = dict.get();
  data::CmuDict distilled;
  if (!a.get("distill").empty()) {
    distilled = *dict;
    const DistillStats ds =
        apply_distill(a.get("distill"), a.get("distill-column"), a.flag("distill-refs"), distilled, split.train, d.tv);
    train_dict = &distilled;
    d.meta["distill"] = a.get("distill");
    d.meta["distill_column"] = a.get("distill-column");
    d.meta["distill_refs"] = a.flag("distill-refs") ? "1" : "0";
    d.meta["distill_fnv1a64"] = ds.hash;
    d.notes.push_back("distilled targets (" + a.get("distill-column") + " of " + a.get("distill") + "): " +
                      count_str(ds.words) + " of " + count_str(split.train.size()) + " training words listed, " +
                      count_str(ds.changed) + " with an output that is none of their pronunciations" +
                      (a.flag("distill-refs") ? " (added beside them)" : " (replacing them)") +
                      (ds.empty ? ", " + count_str(ds.empty) + " empty (kept as they were)" : ""));
  } else if (a.given("distill-column") || a.flag("distill-refs")) {
    throw UsageError("--distill-column and --distill-refs go with --distill PATH");
  }
  for (const auto& p : data::make_g2p_pairs(*train_dict, split.train, d.sv, d.tv)) {
    if (p.src.size() > d.max_src_len || p.tgt.size() > d.max_tgt_len) continue;
    d.src.push_back(p.src);
    d.tgt.push_back(p.tgt);
  }
  const auto& valid = split.valid;
  const std::vector<size_t> val(valid.begin(), valid.begin() + long(std::min(val_size, valid.size())));
  d.val_name = "val_wer";
  d.val_count = val.size();
  if (val.empty()) {  // a tiny dictionary: no word fell in the validation split
    d.notes.push_back("no validation words in the split: validation is reported as n/a");
    return;
  }
  d.validate = [dict, val](const models::Translator& m, models::DecodePrecision p) {
    return eval_g2p(m, *dict, val, 0, 1, 0.6f, p).score.wer();
  };
}

void load_dates(const Args& a, Seq2SeqData& d, size_t val_size) {
  const uint64_t split_seed = a.u64("split-seed");
  const data::DateSplit ds = data::split_dates(data::all_dates(), split_seed);
  d.sv = data::date_input_vocab();
  d.tv = data::date_output_vocab();
  d.max_src_len = 20;
  d.max_tgt_len = 12;
  d.output_sep = "";
  d.meta["data"] = "dates";
  d.meta["data_stats"] = data::date_stats_json(data::date_stats(data::all_dates(), ds), -1);
  for (const auto& p : data::make_date_pairs(ds.train)) {
    d.src.push_back(data::encode_date_chars(d.sv, p.input));
    d.tgt.push_back(data::encode_date_chars(d.tv, p.output));
  }
  const auto val = sample_of(data::make_date_pairs(ds.valid), val_size, split_seed + 7);
  d.val_name = "val_exact_err";
  d.val_count = val.size();
  d.validate = [val](const models::Translator& m, models::DecodePrecision p) {
    return 1.0 - eval_dates(m, val, 0, 1, 0.6f, p).em.accuracy();
  };
}

// FNV-1a (64 bit) over every pair read, as hex: what the run id records of the data itself
std::string pairs_hash(const std::vector<data::TextPair>& a, const std::vector<data::TextPair>& b,
                       const std::vector<data::TextPair>& c) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char ch : s) {
      h ^= ch;
      h *= 0x100000001b3ull;
    }
  };
  for (const auto* v : {&a, &b, &c}) {
    for (const auto& p : *v) mix(p.src + "\t" + p.tgt + "\n");
    mix("\f");
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void load_tsv(const Args& a, Seq2SeqData& d, size_t val_size) {
  if (a.get("train").empty())
    throw UsageError("train seq2seq needs --train FILE (UTF-8, one 'source<TAB>target' per line); "
                     "see 'attnlab train seq2seq --help'");
  const bool skip_bad = a.flag("skip-bad");
  const bool extra = a.flag("extra-columns");
  const bool held_out_files = a.given("valid") || a.given("test");
  if (a.given("split") && held_out_files)
    throw UsageError("give either --split or --valid/--test, not both");
  data::TokenUnit su, tu;
  try {
    su = data::parse_token_unit(a.get("src-tokens"));
    tu = data::parse_token_unit(a.get("tgt-tokens"));
  } catch (const Error& e) {
    throw UsageError(std::string("--src-tokens/--tgt-tokens: ") + e.what());
  }
  const size_t min_count = a.u64("min-count", 1, 1u << 30);
  const uint64_t split_seed = a.u64("split-seed");
  // every file is read (and its lines checked) before any training starts
  const data::TsvPairs tr = read_pairs(a.get("train"), skip_bad, "--train", extra);
  data::TsvPairs va, te;
  if (a.given("valid")) va = read_pairs(a.get("valid"), skip_bad, "--valid", extra);
  if (a.given("test")) te = read_pairs(a.get("test"), skip_bad, "--test", extra);
  auto skipped_note = [&](const char* flag, const data::TsvPairs& p) {
    if (!p.skipped) return;
    std::string s = std::string(flag) + ": skipped " + count_str(p.skipped) + " malformed line(s) of " +
                    count_str(p.lines);
    for (const auto& ex : p.skipped_examples) s += "\n  " + ex;
    d.notes.push_back(s);
  };
  skipped_note("--train", tr);
  skipped_note("--valid", va);
  skipped_note("--test", te);
  std::vector<data::TextPair> train = tr.pairs;
  std::string split = a.get("split");
  if (split.empty() && !held_out_files) split = "90/5/5";
  if (!split.empty()) {
    data::SplitFractions f;
    try {
      f = data::parse_split_fractions(split);
    } catch (const Error& e) {
      throw UsageError(std::string("--split: ") + e.what());
    }
    data::PairSplit ps = data::split_pairs(tr.pairs, split_seed, f);
    train = std::move(ps.train);
    d.valid = std::move(ps.valid);
    d.test = std::move(ps.test);
    d.meta["split"] = split;
  } else {
    d.valid = va.pairs;
    d.test = te.pairs;
  }
  if (train.empty())
    throw Error("--train " + a.get("train") + ": no training pairs" +
                (tr.pairs.empty() ? std::string(" in the file") : " left after the split (" + split + ")"));
  data::PairEncodingOptions eo;
  eo.src = su;
  eo.tgt = tu;
  eo.min_count = min_count;
  eo.max_src_len = a.u64("max-src-len") ? a.u64("max-src-len", 1, 100000) : 0;
  eo.max_tgt_len = a.u64("max-tgt-len") ? a.u64("max-tgt-len", 1, 100000) : 0;
  data::EncodedPairs enc = data::encode_training_pairs(train, eo);
  d.sv = std::move(enc.sv);
  d.tv = std::move(enc.tv);
  d.src = std::move(enc.src);
  d.tgt = std::move(enc.tgt);
  d.max_src_len = enc.max_src_len;
  d.max_tgt_len = enc.max_tgt_len;
  d.uppercase = false;
  d.src_tokens = data::token_unit_name(su);
  d.tgt_tokens = data::token_unit_name(tu);
  d.output_sep = tu == data::TokenUnit::Char ? "" : " ";
  const size_t too_long = enc.too_long;
  if (too_long) d.notes.push_back(count_str(too_long) + " training pair(s) over --max-src-len/--max-tgt-len left out");
  d.meta["data"] = "tsv";
  d.meta["pairs_fnv1a64"] = pairs_hash(tr.pairs, va.pairs, te.pairs);  // a resumed run must read the same pairs
  d.meta["train_file"] = a.get("train");
  d.meta["valid_file"] = a.get("valid");
  d.meta["test_file"] = a.get("test");
  d.meta["split_seed"] = std::to_string(split_seed);
  d.meta["min_count"] = std::to_string(min_count);
  if (extra) d.meta["extra_columns"] = "1";  // only when set: older runs keep their ids
  d.meta["data_stats"] =
      json{{"train_pairs", train.size()}, {"valid_pairs", d.valid.size()}, {"test_pairs", d.test.size()},
           {"skipped_lines", tr.skipped + va.skipped + te.skipped}, {"src_vocab", d.sv.size()},
           {"tgt_vocab", d.tv.size()}, {"max_src_len", d.max_src_len}, {"max_tgt_len", d.max_tgt_len}}
          .dump();
  d.notes.push_back("pairs: " + count_str(train.size()) + " train, " + count_str(d.valid.size()) + " valid, " +
                    count_str(d.test.size()) + " test; vocabularies: " + count_str(d.sv.size()) + " source " +
                    a.get("src-tokens") + "s, " + count_str(d.tv.size()) + " target " + a.get("tgt-tokens") +
                    "s (min count " + std::to_string(min_count) + ", specials included)");
  d.val_name = "val_exact_err";
  const auto val = sample_of(d.valid, val_size, split_seed + 7);
  d.val_count = val.size();
  if (val.empty()) {
    d.notes.push_back("no validation pairs: validation is reported as n/a (give --valid FILE or a --split "
                      "with a validation part)");
    return;
  }
  d.validate = [val](const models::Translator& m, models::DecodePrecision p) {
    return 1.0 - score_pairs(m, val, scoring_options(1, 0.6f, p)).em.accuracy();
  };
}

}  // namespace

Seq2SeqData load_seq2seq_data(const Args& a, const std::string& task, uint64_t seed) {
  Seq2SeqData d;
  d.task = task;
  d.meta["split_seed"] = std::to_string(a.u64("split-seed"));
  const size_t val_size = a.u64("val-size", 1, 1 << 24);
  if (task == "g2p") load_g2p(a, d, val_size);
  else if (task == "dates") load_dates(a, d, val_size);
  else if (task == "seq2seq") load_tsv(a, d, val_size);
  else throw UsageError("unknown seq2seq task '" + task + "' (expected " + kTasks + ")");
  const size_t max_train = a.u64("max-train");
  if (max_train && max_train < d.src.size()) {  // a seeded sample, in the list's order
    std::vector<size_t> idx(d.src.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    Rng r(seed + 99);
    r.shuffle(idx);
    idx.resize(max_train);
    std::sort(idx.begin(), idx.end());
    std::vector<std::vector<int>> s2, t2;
    for (size_t i : idx) {
      s2.push_back(d.src[i]);
      t2.push_back(d.tgt[i]);
    }
    d.src.swap(s2);
    d.tgt.swap(t2);
  }
  return d;
}

void record_data_in_run(json& run_json, const Seq2SeqData& d) {
  if (d.task == "seq2seq") run_json["data"] = d.meta;
  auto it = d.meta.find("distill_fnv1a64");
  if (it != d.meta.end())
    run_json["distill"] = {{"fnv1a64", it->second}, {"column", d.meta.at("distill_column")},
                           {"refs", d.meta.at("distill_refs") == "1"}};
}

// What a run of any seq2seq architecture does after training: the user's pairs are scored
// on the test split (or the validation split without one).
json final_pair_scores(TrainScaffold& run, const models::Translator& m, const Seq2SeqData& d) {
  if (d.task != "seq2seq") return nullptr;
  const bool has_test = !d.test.empty();
  const PairScore s = score_pairs(m, has_test ? d.test : d.valid,
                                 scoring_options(1, 0.6f, models::DecodePrecision::Int8));
  const char* which = has_test ? "test" : "valid";
  run.note(std::string(which) + " (greedy): " + pair_score_line(s));
  json j = s.to_json();
  j["split"] = which;
  return j;
}

void report_train_event(TrainScaffold& run, const nn::TrainEvent& ev, const Seq2SeqData& d,
                        const json& extra) {
  char val[64] = "n/a";
  if (ev.has_eval) std::snprintf(val, sizeof val, "%.4f", ev.eval);
  char buf[256];
  std::snprintf(buf, sizeof buf, "epoch %zu step %zu  loss %.4f  %s %s  lr %.2e  %.0f samples/s  %.0fs",
                ev.epoch + 1, ev.step, ev.loss, d.val_name.c_str(), val, ev.lr, ev.samples_per_s,
                run.elapsed());
  json fields = {{"step", ev.step}, {"epoch", ev.epoch + 1}, {"loss", ev.loss},
                 {d.val_name, ev.has_eval ? json(ev.eval) : json(nullptr)},
                 {"lr", ev.lr}, {"samples_per_s", ev.samples_per_s}};
  fields.update(extra);
  run.event(std::move(fields), buf);
}

void report_done(TrainScaffold& run, const std::string& out, size_t params, size_t steps,
                 const json& scores, const Seq2SeqData& d) {
  char buf[320];
  std::snprintf(buf, sizeof buf, "saved %s (%zu parameters, %s) after %zu steps, %.0f s of training",
                out.c_str(), params, io::dtype_name(run.dtype()), steps, run.elapsed());
  json done = {{"model", out}, {"steps", steps}, {"params", params}};
  if (!scores.is_null()) done["scores"] = scores;
  if (d.task == "seq2seq") done["data"] = json::parse(d.meta.at("data_stats"));  // pairs per split, skipped lines
  run.done(done, buf);
}

std::vector<data::TextPair> tsv_eval_pairs(const std::map<std::string, std::string>& meta,
                                           const std::string& test_path, bool skip_bad,
                                           std::string* source, const std::string& which) {
  auto get = [&](const char* k) {
    auto it = meta.find(k);
    return it == meta.end() ? std::string() : it->second;
  };
  const bool extra = get("extra_columns") == "1";
  if (!test_path.empty()) {
    *source = test_path;
    return read_pairs(test_path, skip_bad, "--test", extra).pairs;
  }
  const bool valid = which == "valid";
  const std::string file = get(valid ? "valid_file" : "test_file");
  if (!file.empty()) {
    *source = file + " (recorded in the model)";
    return read_pairs(file, skip_bad, valid ? "validation file" : "test file", extra).pairs;
  }
  if (!get("split").empty() && !get("train_file").empty()) {
    *source = std::string("the ") + (valid ? "validation" : "test") + " part (" + get("split") + ", seed " +
              get("split_seed") + ") of " + get("train_file");
    const data::TsvPairs all = read_pairs(get("train_file"), true, "training file", extra);
    data::PairSplit ps =
        data::split_pairs(all.pairs, std::stoull(get("split_seed")), data::parse_split_fractions(get("split")));
    return valid ? std::move(ps.valid) : std::move(ps.test);
  }
  return {};
}

}  // namespace attnlab::cli
