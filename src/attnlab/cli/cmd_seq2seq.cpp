// attnlab train g2p | train dates | eval / predict on a seq2seq model file.
#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/attention/score.hpp"
#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/seq2seq_data.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/dates.hpp"
#include "attnlab/data/number_words.hpp"
#include "attnlab/eval/head_similarity.hpp"
#include "attnlab/eval/seq_metrics.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/registry.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {

// "dot, scaled_dot, ... or local_p": the score table plus Luong's local-p
std::string score_choices() {
  std::string s;
  for (const std::string& n : attention::score_names()) s += n + ", ";
  return s.substr(0, s.size() - 2) + " or local_p";
}
using json = nlohmann::json;
using models::Seq2Seq;
using models::Seq2SeqConfig;

// ---------------------------------------------------------------- tasks
// The G2P data eval reads again (dictionary and split, from the model's metadata).
struct G2PData {
  data::CmuDict dict;
  data::CmuSplit split;
};

G2PData load_g2p(const std::string& path, uint64_t split_seed, bool keep_stress) {
  G2PData d;
  data::CmuOptions opt;
  opt.keep_stress = keep_stress;
  d.dict = data::load_cmudict(path, opt);
  d.split = data::split_cmudict(d.dict, split_seed);
  return d;
}

// How alike a Transformer's heads are on a split: attention maps from greedy decoding
// (cosine of the flattened maps, per layer, over pairs of distinct heads) and heads'
// outputs from teacher-forced passes on the reference pronunciation (the similarity
// the output penalty computes, converted to distinct pairs); each averaged over
// layers and words, per attention (encoder self, decoder self, cross). position_term and
// subspace_term: the position and subspace penalties' own values on the same
// teacher-forced batches (Li et al.'s form: mean over all H^2 ordered pairs, i == j
// included; position summed over query rows), per batch of 64 words.
json head_similarity(const models::Translator& m, const G2PData& gd, const std::vector<size_t>& entries,
                     size_t limit) {
  const auto* t = dynamic_cast<const models::TransformerSeq2Seq*>(&m);
  if (!t) throw UsageError("--heads measures Transformer heads; this model is a " + std::string(m.kind()));
  const size_t H = t->config().nhead;
  if (H < 2) throw UsageError("--heads needs a model with at least 2 heads");
  const size_t n = limit ? std::min(limit, entries.size()) : entries.size();
  std::vector<size_t> use(entries.begin(), entries.begin() + std::ptrdiff_t(n));
  eval::MeanAccumulator pos[3], out[3], pos_term[3], sub_term[3];
  models::DecodeOptions o;
  o.head_maps = true;
  for (size_t i : use) {
    const data::CmuEntry& en = gd.dict.entries[i];
    if (en.word.size() > m.max_src_len()) continue;
    const models::Translation tr = m.translate(en.word, o);
    const models::HeadMaps* maps[3] = {&tr.enc_self, &tr.dec_self, &tr.cross};
    for (int a = 0; a < 3; ++a)
      for (size_t l = 0; l < maps[a]->layers && maps[a]->rows * maps[a]->cols > 0; ++l)
        pos[a].add(eval::head_pair_cosine(H, maps[a]->rows * maps[a]->cols, maps[a]->map(l, 0)));
  }
  const auto pairs = data::make_g2p_pairs(gd.dict, use, m.src_vocab(), m.tgt_vocab());
  std::vector<std::vector<int>> src, tgt;
  for (const auto& p : pairs) {
    if (p.src.size() > t->config().max_src_len || p.tgt.size() > t->config().max_tgt_len) continue;
    src.push_back(p.src);
    tgt.push_back(p.tgt);
  }
  for (size_t b0 = 0; b0 < src.size(); b0 += 64) {
    std::vector<size_t> idx;
    for (size_t i = b0; i < std::min(src.size(), b0 + 64); ++i) idx.push_back(i);
    models::TransformerLossOptions lo;
    lo.training = false;
    models::TransformerLossInfo info;
    t->loss(models::make_seq2seq_batch(src, tgt, idx), lo, nullptr, &info);
    const attention::DisagreementTerms* terms[3] = {&info.enc_self, &info.dec_self, &info.cross};
    for (int a = 0; a < 3; ++a) {
      out[a].add(eval::distinct_from_all_pairs(H, terms[a]->output));
      pos_term[a].add(terms[a]->position);  // the penalties' own terms (all pairs, i == j included)
      sub_term[a].add(terms[a]->subspace);
    }
  }
  json j;
  const char* names[3] = {"enc_self", "dec_self", "cross"};
  for (int a = 0; a < 3; ++a)
    j[names[a]] = {{"position", pos[a].mean()},
                   {"output", out[a].mean()},
                   {"position_term", pos_term[a].mean()},
                   {"subspace_term", sub_term[a].mean()}};
  j["heads"] = H;
  j["words"] = use.size();
  return j;
}

models::DecodePrecision parse_precision(const std::string& s) {
  try {
    return models::parse_decode_precision(s);
  } catch (const Error& e) {
    throw UsageError(std::string("--precision: ") + e.what());
  }
}
const char* precision_name(models::DecodePrecision p) { return models::decode_precision_name(p); }

std::vector<FlagSpec> rnn_train_flags(const std::string& task) {
  TrainFlagDefaults d;  // --out empty by default: the task names the file
  d.out_help = "model file to write, rewritten at every validation (default: <task>.safetensors)";
  d.dtype = "f16";
  d.seed_help = "seed of the initialisation and the batch order";
  d.trainer_flags = {"10", "64", "0.002", "200"};  // epochs, batch size, lr, warm-up steps
  d.checkpoint_every = "500";
  d.checkpoint_every_help = "steps between checkpoints";
  const FlagSpec arch = {"arch", "rnn|transformer", "rnn",
                         task == "dates" ? "model kind (dates: rnn)"
                                         : "model kind (see 'attnlab train " + task +
                                               " --arch transformer --help')"};
  const std::vector<FlagSpec> model = {
      {"rnn", "gru|lstm", "", "recurrent cell (default: g2p and seq2seq gru, dates lstm)"},
      {"uni", "", "", "unidirectional encoder (dates default; otherwise bidirectional)"},
      {"bi", "", "", "bidirectional encoder"},
      {"no-input-feed", "", "", "do not feed the attentional vector into the next step"},
      {"input-feed", "", "", "feed the attentional vector into the next step"},
      {"score", "NAME", "", score_choices() + " (default: g2p and seq2seq additive, dates dot)"},
      {"emb", "N", "0", "embedding width (0 = task default: 64)"},
      {"hidden", "N", "0", "encoder hidden size per direction (0 = g2p/seq2seq 128, dates 64)"},
      {"attn-dim", "N", "0", "additive / local-p attention size (0 = decoder hidden / 2)"},
      {"combine", "N", "0", "attentional vector size (0 = g2p/seq2seq 256, dates 64)"},
      {"window", "N", "3", "local_p window half-width D"},
      schedule_flag(),
      label_smoothing_flag("0"),
      eval_every_flag(),
      init_from_flag(),
  };
  return seq2seq_train_flags(arch, task, model, d);
}

// The model flags (judged before the data is read); the data's part comes with Seq2SeqData::apply.
Seq2SeqConfig seq2seq_config_from(const Args& a, const std::string& task) {
  Seq2SeqConfig cfg = task == "dates" ? models::tfjs_dates_config() : Seq2SeqConfig();
  if (!a.get("rnn").empty()) cfg.rnn = a.get("rnn");
  if (a.flag("uni")) cfg.bidirectional = false;
  if (a.flag("bi")) cfg.bidirectional = true;
  if (a.flag("no-input-feed")) cfg.input_feed = false;
  if (a.flag("input-feed")) cfg.input_feed = true;
  if (!a.get("score").empty()) cfg.score = a.get("score");
  if (a.u64("emb")) cfg.emb = a.u64("emb", 1, 4096);
  if (a.u64("hidden")) cfg.enc_hidden = a.u64("hidden", 1, 4096);
  if (a.u64("combine")) cfg.combine = a.u64("combine", 1, 4096);
  cfg.attn_dim = a.u64("attn-dim") ? a.u64("attn-dim", 1, 4096) : std::max<size_t>(1, cfg.dec_hidden() / 2);
  cfg.local_window = a.u64("window", 1, 1000);
  try {
    cfg.validate();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return cfg;
}

const char* kSeq2SeqAbout =
    "Trains a seq2seq model with attention and writes one model file.\n"
    "  g2p:     CMUdict spelling -> phonemes (stress stripped unless --stress), split by\n"
    "           word 90/5/5;\n"
    "           default: bi-GRU 2x128 encoder, GRU 256 decoder with input feeding,\n"
    "           additive (Bahdanau) attention, attentional vector 256.\n"
    "  dates:   the 20 input formats of the TensorFlow.js example -> YYYY-MM-DD, 1950-2049,\n"
    "           split by date 90/5/5; default: the tfjs architecture (embedding 64, LSTM 64\n"
    "           encoder and decoder, Luong dot attention, Dense 64 tanh, softmax).\n"
    "  seq2seq: your own pairs: a UTF-8 file with one 'source<TAB>target' per line\n"
    "           (--train; --valid/--test files or a seeded --split, 90/5/5 by default);\n"
    "           characters (Unicode code points), words, or lowercased words with the\n"
    "           punctuation split off (wordpunct) per side; vocabularies counted from the\n"
    "           training pairs (--min-count; rarer tokens and unseen ones become <unk>);\n"
    "           the g2p architecture by default, or --arch transformer.\n"
    "Validation during training: greedy WER (g2p) or exact-match error (dates, seq2seq).\n"
    "seq2seq ends with exact match, token error rate, BLEU-4 on the target tokens, and\n"
    "BLEU (sacreBLEU's zh tokenization) and chrF2 on the detokenized text of the test pairs.";

// attnlab train g2p | train dates | train seq2seq
int train_seq2seq(const std::string& task, const Argv& argv) {
  reject_foreign_data_flags(task, argv);
  Args a("train " + task, rnn_train_flags(task));
  if (a.parse_or_help(argv, "attnlab train " + task + " [flags]", kSeq2SeqAbout)) return 0;
  a.no_positional();
  if (a.get("arch") != "rnn")
    throw UsageError("--arch must be rnn or transformer (g2p and seq2seq), got '" + a.get("arch") + "'");
  check_data_files(a, task);
  TrainScaffold run(a, "train " + task);
  const uint64_t seed = run.seed();
  Seq2SeqConfig cfg = seq2seq_config_from(a, task);
  Seq2SeqData t = load_seq2seq_data(a, task, seed);
  t.apply(cfg);
  cfg.validate();
  const std::string out = run.out().empty() ? task + ".safetensors" : run.out();
  for (const auto& n : t.notes) run.note(n);

  Seq2Seq m(cfg, t.sv, t.tv, seed);
  ParamList ps;
  m.collect(ps);
  if (!a.get("init-from").empty()) init_from(a.get("init-from"), "seq2seq", cfg, ps, t.meta);
  nn::LrSchedule sched = run.schedule(a);
  sched.min_lr = sched.base_lr * 0.02f;
  nn::Adam opt(ps, sched.base_lr);
  std::vector<size_t> lens;
  for (auto& s : t.src) lens.push_back(s.size());
  data::Batcher batcher(lens, run.batch(), seed, true, true);
  nn::TrainOptions to = run.train_options(batcher.num_batches());
  to.eval_every = a.u64("eval-every");
  sched.total = to.epochs * batcher.num_batches();
  const float smoothing = static_cast<float>(a.num("label-smoothing", 0, 0.99));
  json run_json = {{"task", task}, {"config", cfg.to_json()}, {"seed", seed},
                   {"split_seed", a.u64("split-seed")}, {"batch", run.batch()},
                   {"epochs", to.epochs}, {"max_train", a.u64("max-train")}, {"lr", a.get("lr")},
                   {"schedule", a.get("schedule")}, {"warmup", sched.warmup},
                   {"clip", a.get("clip")}, {"label_smoothing", a.get("label-smoothing")},
                   {"init_from", a.get("init-from")}};
  if (task == "g2p" && a.flag("stress")) run_json["stress"] = true;  // only when set: older runs keep their ids
  record_data_in_run(run_json, t);
  run.set_run_id(run_json);
  to.checkpoint_meta["run"] = run.run_id();
  nn::Trainer trainer(ps, opt, sched, batcher, to);
  run.resume(trainer);
  run.note(task + ": " + std::to_string(t.src.size()) + " training pairs, " +
           std::to_string(batcher.num_batches()) + " batches/epoch, " +
           std::to_string(trainer.total_steps()) + " steps, " + std::to_string(ps.count()) +
           " parameters, config " + cfg.to_json());

  auto save_model = [&](const json& scores) {
    std::map<std::string, std::string> mm = t.meta;
    mm["trained_steps"] = std::to_string(trainer.step());
    mm["train_seconds"] = std::to_string(run.elapsed());
    mm["run"] = run.run_id();
    if (!scores.is_null()) mm["scores"] = scores.dump();
    run.write(out, m.save({run.dtype(), mm}));
  };
  nn::TrainHooks hooks = run.hooks(trainer);
  hooks.step = [&](const std::vector<size_t>& idx, Rng&) {
    return static_cast<double>(m.train_step(models::make_seq2seq_batch(t.src, t.tgt, idx), smoothing));
  };
  if (t.validate)
    hooks.evaluate = [&]() {
      m.reset_decode_plan();  // the weights changed since the last validation
      return t.validate(m, models::DecodePrecision::Int8);
    };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    save_model(nullptr);
    report_train_event(run, ev, t);
  };
  run.run(trainer, hooks);
  m.reset_decode_plan();
  const json scores = final_pair_scores(run, m, t);
  save_model(scores);
  report_done(run, out, ps.count(), trainer.step(), scores, t);
  return 0;
}

}  // namespace

namespace {
// g2p and seq2seq: --arch transformer hands the arguments to the Transformer command
int train_rnn_or_transformer(const std::string& task, const Argv& argv) {
  for (size_t i = 0; i < argv.size(); ++i)
    if (argv[i] == "--arch=transformer" ||
        (argv[i] == "--arch" && i + 1 < argv.size() && argv[i + 1] == "transformer")) {
      Argv t{task};
      t.insert(t.end(), argv.begin(), argv.end());
      return cmd_train_transformer(t);
    }
  return train_seq2seq(task, argv);
}
}  // namespace

int cmd_train_g2p(const Argv& argv) { return train_rnn_or_transformer("g2p", argv); }
int cmd_train_seq2seq_pairs(const Argv& argv) { return train_rnn_or_transformer("seq2seq", argv); }
int cmd_train_dates(const Argv& argv) { return train_seq2seq("dates", argv); }

// attnlab example-pairs: numbers in words <-> digits as TSV on stdout (or --out)
int cmd_example_pairs(const Argv& argv) {
  return example_command(
      argv, "example-pairs",
      {{"lang", "en|zh", "en", "English words or Chinese numerals"},
       {"direction", "words-digits|digits-words", "words-digits", "which side is the source"},
       {"count", "N", "5000", "pairs (distinct numbers)"},
       {"max", "N", "99999", "largest number (en: up to 999999, zh: up to 99999999)"},
       {"seed", "N", "1", "seed of the numbers drawn"}},
      "attnlab example-pairs [flags] > pairs.tsv",
      "Writes generated pairs to try 'attnlab train seq2seq' on: distinct numbers drawn\n"
      "from 0..max, one 'source<TAB>target' line each, e.g.\n"
      "  en: forty two thousand seven<TAB>42007   zh: 四万二千零七<TAB>42007",
      [](const Args& a) {
        const std::string lang = a.get("lang"), dir = a.get("direction");
        if (lang != "en" && lang != "zh") throw UsageError("--lang must be en or zh, got '" + lang + "'");
        if (dir != "words-digits" && dir != "digits-words")
          throw UsageError("--direction must be words-digits or digits-words, got '" + dir + "'");
        const uint64_t max = a.u64("max", 1, lang == "en" ? 999999 : 99999999);
        return data::pairs_tsv(
            data::number_pairs(a.u64("count", 1, 10000000), max, a.u64("seed"), lang, dir));
      });
}

// ---------------------------------------------------------------- eval / predict
namespace {
// eval of a model trained on the user's pairs: exact match, token error rate and BLEU on --test
// (or the test pairs the model records), greedy and with --beam
int eval_pairs_model(const Args& a, const io::SafeTensors& st, const models::Translator& m, json j,
                     models::DecodePrecision prec, float alpha, size_t limit, size_t beam) {
  const std::string path = j["model"].get<std::string>();
  const char* pname = precision_name(prec);
  for (const char* f : {"data", "heads"})
    if (a.given(f))
      throw UsageError(std::string("--") + f + " applies to G2P and dates models; this one was trained on "
                       "your pairs (score them with --test FILE)");
  if (a.given("split") && a.given("test"))
    throw UsageError("give either --split valid|test (the held-out pairs the model records) or --test FILE");
  std::string source;
  const std::vector<data::TextPair> pairs =
      tsv_eval_pairs(io::model_info(st).extra, a.get("test"), a.flag("skip-bad"), &source, a.get("split"));
  if (pairs.empty())
    throw UsageError(source.empty() ? "this model records no test pairs: give --test FILE"
                                    : source + ": no pairs to score");
  models::DecodeOptions o;
  o.precision = prec;
  o.length_alpha = alpha;
  o.head_maps = false;
  std::vector<PairScore> evs = {score_pairs(m, pairs, o, limit)};
  if (a.given("beam") && beam > 1) {
    o.beam = beam;
    evs.push_back(score_pairs(m, pairs, o, limit));
  }
  j.erase("split");
  j.erase("split_seed");
  j["test"] = source;
  j["greedy"] = evs[0].to_json();
  if (evs.size() > 1) {
    j["beam"] = evs[1].to_json();
    j["beam"]["width"] = beam;
  }
  if (a.flag("json")) {
    std::cout << j.dump() << std::endl;
  } else {
    std::printf("%s: %s (%s decoder)\n", path.c_str(), source.c_str(), pname);
    std::printf("  greedy: %s\n", pair_score_line(evs[0]).c_str());
    if (evs.size() > 1) std::printf("  beam %zu: %s\n", beam, pair_score_line(evs[1]).c_str());
  }
  return 0;
}

// --predictions: one line per word of the split, in its order: the word, its references
// (' | ' between them), then per decoder that ran (greedy; beam; the --ensemble) its output,
// whether it is correct (1/0: equal to a reference) and its edit distance to the closest one
void write_g2p_predictions(const std::string& path, const data::CmuDict& dict,
                           const std::vector<size_t>& entries,
                           const std::vector<std::pair<std::string, const G2PEval*>>& decoders) {
  auto phones = [](const data::Pron& p) { return data::join_tokens(p, data::TokenUnit::Word); };
  std::string out = "word\treferences";
  for (const auto& [name, e] : decoders) out += "\t" + name + "\t" + name + "_correct\t" + name + "_edits";
  out += "\n";
  for (size_t i = 0; i < decoders[0].second->outputs.size(); ++i) {  // the words scored (--limit)
    const data::CmuEntry& en = dict.entries[entries[i]];
    out += en.word + "\t";
    for (size_t r = 0; r < en.prons.size(); ++r) out += (r ? " | " : "") + phones(en.prons[r]);
    for (const auto& [name, e] : decoders)
      out += "\t" + phones(e->outputs[i]) + "\t" + (e->scored[i].correct ? "1" : "0") + "\t" +
             std::to_string(e->scored[i].edits);
    out += "\n";
  }
  io::write_text(path, out);
}

// eval of a G2P model: WER and PER on its CMUdict split, greedy and (unless --beam 0) with beam search
int eval_g2p_model(const Args& a, const io::SafeTensors& st, const models::Translator& m, json j,
                   models::DecodePrecision prec, float alpha, size_t limit, size_t beam) {
  const std::string path = j["model"].get<std::string>();
  const std::string which = j["split"].get<std::string>();
  const uint64_t split_seed = j["split_seed"].get<uint64_t>();
  const char* pname = precision_name(prec);
  const bool stress = st.meta("stress", "0") == "1";
  // --ensemble's model, checked before the dictionary is read
  std::unique_ptr<models::Translator> m2;
  if (a.given("ensemble")) {
    const std::string other = a.get("ensemble");
    const io::SafeTensors st2 = io::read_file(other);
    if (st2.meta("data") != "cmudict")
      throw UsageError("--ensemble " + other + ": not a G2P model (its data is '" + st2.meta("data") + "')");
    if (st2.meta("split_seed", "1234") != std::to_string(split_seed) || (st2.meta("stress", "0") == "1") != stress)
      throw UsageError("--ensemble " + other + ": trained on another split or phoneme set (split seed " +
                       st2.meta("split_seed", "1234") + ", stress " + st2.meta("stress", "0") + "; this model: " +
                       std::to_string(split_seed) + ", " + (stress ? "1" : "0") +
                       "): its training words may be this split's " + which + " words");
    m2 = models::load_translator(st2);
  }
  const G2PData gd = load_g2p(a.get("data"), split_seed, stress);
  const auto& entries = which == "test" ? gd.split.test : which == "train" ? gd.split.train : gd.split.valid;
  if (entries.empty())
    throw Error(a.get("data") + ": the " + which + " split (seed " + std::to_string(split_seed) +
                ") holds no words, so there is nothing to score");
  const G2PEval g = eval_g2p(m, gd.dict, entries, limit, 1, alpha, prec);
  const G2PEval b = beam ? eval_g2p(m, gd.dict, entries, limit, beam, alpha, prec) : G2PEval{};
  j["words"] = g.words;
  j["stress"] = stress;
  j["greedy"] = {{"wer", g.score.wer()}, {"per", g.score.per()}, {"seconds", g.seconds}};
  if (beam)
    j["beam"] = {{"width", beam}, {"alpha", alpha}, {"wer", b.score.wer()}, {"per", b.score.per()}, {"seconds", b.seconds}};
  if (stress) {
    j["greedy"]["stripped"] = {{"wer", g.stripped.wer()}, {"per", g.stripped.per()}};
    if (beam) j["beam"]["stripped"] = {{"wer", b.stripped.wer()}, {"per", b.stripped.per()}};
  }
  if (a.flag("heads")) j["heads"] = head_similarity(m, gd, entries, limit);
  G2PEval ens;
  if (m2) {
    ens = eval_g2p_ensemble(m, *m2, gd.dict, entries, limit, beam, alpha, prec);
    j["ensemble"] = {{"with", a.get("ensemble")}, {"beam", std::max<size_t>(beam, 1)}, {"wer", ens.score.wer()},
                     {"per", ens.score.per()}, {"seconds", ens.seconds}};
    if (stress) j["ensemble"]["stripped"] = {{"wer", ens.stripped.wer()}, {"per", ens.stripped.per()}};
  }
  if (a.given("predictions")) {
    std::vector<std::pair<std::string, const G2PEval*>> decoders = {{"greedy", &g}};
    if (beam) decoders.emplace_back("beam", &b);
    if (m2) decoders.emplace_back("ensemble", &ens);
    write_g2p_predictions(a.get("predictions"), gd.dict, entries, decoders);
    j["predictions_out"] = a.get("predictions");
  }
  if (a.flag("json")) {
    std::cout << j.dump() << std::endl;
  } else {
    std::printf("%s: G2P on %zu %s words (split seed %llu, %s, %s decoder)\n", path.c_str(),
                g.words, which.c_str(), static_cast<unsigned long long>(split_seed),
                stress ? "with stress" : "stress stripped", pname);
    auto line = [&](const char* name, const G2PEval& e) {
      std::printf("  %s  WER %.2f%%  PER %.2f%%", name, 100 * e.score.wer(), 100 * e.score.per());
      if (stress)
        std::printf("   (stress stripped afterwards: WER %.2f%%  PER %.2f%%)",
                    100 * e.stripped.wer(), 100 * e.stripped.per());
      std::printf("  (%.1f s)\n", e.seconds);
    };
    line("greedy:", g);
    char name[64];
    std::snprintf(name, sizeof name, "beam %zu (alpha %.2f):", beam, alpha);
    if (beam) line(name, b);
    if (m2) {
      std::printf("  ensemble with %s (both models' beam %zu hypotheses rescored by their summed log-probability):\n",
                  a.get("ensemble").c_str(), std::max<size_t>(beam, 1));
      line("         ", ens);
    }
    if (j.contains("heads")) {
      std::printf("  head similarity (mean over pairs of distinct heads and layers; 1 = identical):\n");
      for (const char* att : {"enc_self", "dec_self", "cross"})
        std::printf("    %-8s attention maps %.3f  outputs %.3f\n", att,
                    j["heads"][att]["position"].get<double>(), j["heads"][att]["output"].get<double>());
    }
  }
  return 0;
}

// eval of a dates model: exact match per input format on its split, greedy and (with --beam) beam search
int eval_dates_model(const Args& a, const models::Translator& m, json j, models::DecodePrecision prec,
                     float alpha, size_t limit, size_t beam) {
  const std::string path = j["model"].get<std::string>();
  const std::string which = j["split"].get<std::string>();
  const uint64_t split_seed = j["split_seed"].get<uint64_t>();
  const char* pname = precision_name(prec);
  const data::DateSplit ds = data::split_dates(data::all_dates(), split_seed);
  auto dates = which == "test" ? ds.test : ds.valid;
  if (limit && limit < dates.size()) dates.resize(limit);
  const auto pairs = data::make_date_pairs(dates);
  std::vector<DateEval> evs = {eval_dates(m, pairs, 0, 1, alpha, prec)};
  if (a.given("beam") && beam > 1) evs.push_back(eval_dates(m, pairs, 0, beam, alpha, prec));
  j["dates"] = dates.size();
  j["pairs"] = pairs.size();
  const auto& names = data::date_format_names();
  for (size_t e = 0; e < evs.size(); ++e) {
    json pf = json::object();
    for (int f = 0; f < data::kNumDateFormats; ++f) pf[names[size_t(f)]] = evs[e].em.accuracy(size_t(f));
    j[e == 0 ? "greedy" : "beam"] = {{"exact_match", evs[e].em.accuracy()},
                                     {"per_format", pf},
                                     {"seconds", evs[e].seconds},
                                     {"width", e == 0 ? 1 : beam}};
  }
  if (a.flag("json")) {
    std::cout << j.dump() << std::endl;
  } else {
    std::printf("%s: dates, %zu %s dates x 20 formats = %zu pairs (split seed %llu, %s decoder)\n",
                path.c_str(), dates.size(), which.c_str(), pairs.size(),
                static_cast<unsigned long long>(split_seed), pname);
    for (size_t e = 0; e < evs.size(); ++e) {
      std::printf("  %s: exact match %.3f%%  (%.1f s)\n", e == 0 ? "greedy" : "beam",
                  100 * evs[e].em.accuracy(), evs[e].seconds);
      for (int f = 0; f < data::kNumDateFormats; ++f)
        std::printf("    %2d %-16s %.3f%%\n", f, names[size_t(f)].c_str(),
                    100 * evs[e].em.accuracy(size_t(f)));
    }
  }
  return 0;
}
}  // namespace

int cmd_eval_seq2seq(const models::ModelFile& file, const Argv& argv) {
  Args a("eval", {model_flag("seq2seq model file"),
                  {"data", "PATH", data::kCmudictRelPath, "g2p: CMUdict text"},
                  {"split", "NAME", "test", "test or valid (g2p, dates; and seq2seq from your pairs: "
                                            "the parts of the split or the files the model records); "
                                            "g2p also train (the words it was trained on: the outputs "
                                            "for --distill, not a score of the model)"},
                  {"test", "PATH", "", "seq2seq from your pairs: the pairs to score (UTF-8, "
                                       "'source<TAB>target'); default: the model's test file or "
                                       "the test part of its recorded --split"},
                  {"skip-bad", "", "", "seq2seq from your pairs: skip malformed lines of --test"},
                  {"beam", "N", "4", "beam width of the beam-search evaluation (g2p: run unless 0; "
                                     "dates: run when given)"},
                  {"limit", "N", "0", "only the first N words (g2p) or dates (dates) of the split"},
                  {"alpha", "F", "0.6", "beam length normalization ((5+len)/6)^alpha; 0 = none"},
                  {"precision", "int8|int16|f32", "int8", "decoder arithmetic: int8 or int16 "
                                                          "weights (int8 is the default everywhere) "
                                                          "or float32"},
                  {"heads", "", "", "Transformer: also measure how alike the heads are on the "
                                    "split (attention maps and outputs, per attention)"},
                  {"predictions", "PATH", "", "g2p: write each word's output (greedy, beam unless "
                                              "--beam 0, and --ensemble's) beside its references, "
                                              "with whether it is correct and its phone edits (TSV)"},
                  {"ensemble", "PATH", "", "g2p: also score this model and the G2P model at PATH "
                                           "together: each word's beam hypotheses of both "
                                           "rescored by the sum of the two models' "
                                           "log-probabilities (same split and phoneme set)"},
                  json_flag("print one JSON object")});
  if (a.parse_or_help(argv, "attnlab eval --model PATH [flags]",
                            "G2P: word and phoneme error rate (any alternate pronunciation counts\n"
                            "as correct) on the split, greedy and beam; a model trained with\n"
                            "--stress is scored with stress and again with stress stripped.\n"
                            "Dates: exact-match accuracy per input format (greedy; beam with --beam).\n"
                            "Your pairs (attnlab train seq2seq): exact match, token error rate (edit\n"
                            "distance / reference tokens), corpus BLEU-4 (sacreBLEU's, on the\n"
                            "model's target tokens), and on the detokenized text BLEU with sacreBLEU's\n"
                            "zh tokenization (BLEU-zh) and chrF2, greedy and with --beam.")) return 0;
  const std::string& path = file.source;
  const io::SafeTensors& st = file.tensors;
  auto m = models::load_translator(st);
  if ((a.given("test") || a.given("skip-bad")) && st.meta("data") != "tsv")
    throw UsageError("--test FILE (and --skip-bad) score models trained on your pairs; this one was trained on " +
                     st.meta("data") + " (use --split test|valid)");
  const uint64_t split_seed = std::stoull(st.meta("split_seed", "1234"));
  const std::string which = a.get("split");
  if (which == "train" && st.meta("data") != "cmudict")
    throw UsageError("--split train is for G2P models (their training words, for 'train g2p --distill'); this "
                     "model was trained on " + st.meta("data") + ": use --split test or valid");
  if (which != "test" && which != "valid" && which != "train")
    throw UsageError("--split must be test or valid (or train for a G2P model), got '" + which + "'");
  const size_t limit = a.u64("limit"), beam = a.u64("beam", 0, 64);
  const float alpha = static_cast<float>(a.num("alpha", 0, 10));
  const models::DecodePrecision prec = parse_precision(a.get("precision"));
  const char* pname = precision_name(prec);
  json j = {{"model", path}, {"split", which}, {"split_seed", split_seed}, {"precision", pname},
            {"kind", m->kind()}, {"config", json::parse(m->config_json())}};
  if (a.given("ensemble") && st.meta("data") != "cmudict")
    throw UsageError("--ensemble combines G2P models; this model was trained on " + st.meta("data"));
  if (a.given("predictions") && st.meta("data") != "cmudict")
    throw UsageError("--predictions writes the words of a G2P model's split; this model was trained on " +
                     st.meta("data"));
  if (st.meta("data") == "cmudict") return eval_g2p_model(a, st, *m, j, prec, alpha, limit, beam);
  if (st.meta("data") == "dates") return eval_dates_model(a, *m, j, prec, alpha, limit, beam);
  if (st.meta("data") == "tsv") return eval_pairs_model(a, st, *m, j, prec, alpha, limit, beam);
  throw Error(path + ": unknown data '" + st.meta("data") + "' in the model's metadata");
}

namespace {
// The text-mode summary of a translation (stderr, so stdout stays the output alone): the
// sequence probability, then per output token its probability and the input token it
// attends to most, e.g. "7 0.98 <- seven (0.99)".
std::string predict_summary(const json& r) {
  if (!r.contains("probs") || !r.contains("output") || !r.contains("input") || !r.contains("attention")) return "";
  const auto& out = r["output"];
  const auto& in = r["input"];
  const auto& att = r["attention"];
  const size_t rows = r.value("rows", size_t{0}), cols = r.value("cols", size_t{0});
  std::string s;
  char buf[96];
  if (r.contains("logprob")) {
    std::snprintf(buf, sizeof buf, "  p(output) %.4f; per token: p, <- most attended input (weight)\n",
                  std::exp(r["logprob"].get<double>()));
    s += buf;
  }
  const size_t shown = std::min<size_t>({out.size(), r["probs"].size(), rows, 40});
  std::string line = " ";
  for (size_t t = 0; t < shown; ++t) {
    size_t best = 0;
    for (size_t c = 1; c < cols; ++c)
      if (att[t * cols + c].get<double>() > att[t * cols + best].get<double>()) best = c;
    const std::string src = best < in.size() ? in[best].get<std::string>() : "?";
    std::snprintf(buf, sizeof buf, " %.2f <- ", r["probs"][t].get<double>());
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), "%s (%.2f)", src.c_str(),
                  cols ? att[t * cols + best].get<double>() : 0.0);
    const std::string item = " " + out[t].get<std::string>() + buf;
    if (line.size() + item.size() > 100) s += line + "\n", line = " ";
    line += item + (t + 1 < shown ? " |" : "");
  }
  if (shown < out.size()) line += " ...";
  return s + line + "\n";
}
}  // namespace

int cmd_predict_seq2seq(const models::ModelFile& f, const Argv& argv) {
  Args a("predict", {model_flag("seq2seq model file"),
                     {"input", "TEXT", "", "the word or date (or give it as an argument)"},
                     {"beam", "N", "1", "beam width (1 = greedy)"},
                     {"max-len", "N", "0", "longest output (0 = the model's limit)"},
                     {"alpha", "F", "0.6", "beam length normalization exponent (0 = none)"},
                     {"precision", "int8|int16|f32", "int8", "decoder arithmetic (weights)"},
                     json_flag("print tokens, probabilities and attention as JSON")});
  if (a.parse_or_help(argv, "attnlab predict --model PATH [--input TEXT | TEXT]",
                            "Translates one input and prints the output on stdout and, on stderr, the\n"
                            "sequence probability and per output token its probability and the input\n"
                            "token it attends to most (with --json: tokens, per-token probabilities and\n"
                            "the attention matrix, rows = outputs).")) return 0;
  std::string text = a.get("input");
  for (const auto& p : a.positional()) text += (text.empty() ? "" : " ") + p;
  const json r = models::load_model(f)->predict(
      {{"text", text},
       {"beam", a.u64("beam", 1, 64)},
       {"max_len", a.u64("max-len", 0, 100000)},
       {"alpha", a.num("alpha", 0, 10)},
       {"precision", precision_name(parse_precision(a.get("precision")))}});
  if (a.flag("json")) {
    std::cout << r.dump() << std::endl;
    return 0;
  }
  std::cout << r["text"].get<std::string>() << std::endl;
  std::cerr << predict_summary(r);
  return 0;
}

}  // namespace attnlab::cli
