// The toy-reverse model's commands: attnlab train toy-reverse, eval / predict on
// its model files, and attnlab bench (training throughput of the same model).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/config_flags.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/models/registry.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/models/toy_seq2seq.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {
using json = nlohmann::json;

// The toy model's sizes (train toy-reverse and bench, with their own defaults), each with
// the member it fills
std::vector<ConfigFlag<models::ToyConfig>> toy_size_flags(const char* vocab, const char* vocab_help,
                                                          const char* emb, const char* hidden) {
  using C = models::ToyConfig;
  return {{{"vocab", "N", vocab, vocab_help}, &C::vocab, 4, 100000},
          {{"emb", "N", emb, "embedding width"}, &C::emb, 1, 4096},
          {{"hidden", "N", hidden, "GRU hidden size"}, &C::hidden, 1, 4096}};
}

// train toy-reverse's own flags, the model's with the member each fills
const std::vector<ConfigFlag<models::ToyConfig>>& toy_flags() {
  using C = models::ToyConfig;
  static const std::vector<ConfigFlag<C>> flags = [] {
    std::vector<ConfigFlag<C>> f =
        toy_size_flags("13", "vocabulary size incl. 3 special tokens (toy-reverse)", "32", "64");
    const std::vector<ConfigFlag<C>> rest = {
      {{"min-len", "N", "3", "shortest generated sequence"}, &C::min_len, 1, 1000},
      {{"max-len", "N", "8", "longest generated sequence"}, &C::max_len, 1, 1000},
      {{"samples", "N", "4096", "generated training sequences"}},
      {{"val-samples", "N", "256", "generated validation sequences"}},
      {{"optimizer", "NAME", "adam", "adam, adamw or sgd (momentum 0.9)"}},
      {{"weight-decay", "F", "0", "weight decay (decoupled for adamw)"}},
      schedule_flag(),
      {{"no-bucket", "", "", "do not bucket batches by length"}},
      eval_every_flag("evaluate every N steps (0 = every epoch)"),
    };
    f.insert(f.end(), rest.begin(), rest.end());
    return f;
  }();
  return flags;
}

models::ToyConfig toy_config_from(const Args& a) {
  models::ToyConfig c;
  read_config_flags(a, toy_flags(), c);
  if (c.min_len > c.max_len) throw UsageError("--min-len must not exceed --max-len");
  return c;
}

struct Eval {
  double loss = 0, token_acc = 0, exact = 0;
};

Eval evaluate_toy(const models::ToySeq2Seq& m, const models::ToyData& d, bool decode) {
  Eval e;
  const size_t n = d.src.size(), bs = 256;
  double wsum = 0;
  for (size_t s = 0; s < n; s += bs) {
    std::vector<size_t> idx;
    size_t toks = 0;
    for (size_t i = s; i < std::min(n, s + bs); ++i) {
      idx.push_back(i);
      toks += d.tgt[i].size() + 1;
    }
    e.loss += m.loss(models::make_toy_batch(d, idx)) * static_cast<double>(toks);
    wsum += static_cast<double>(toks);
  }
  e.loss /= wsum;
  if (decode) {
    size_t exact = 0, right = 0, total = 0;
    for (size_t i = 0; i < n; ++i) {
      const std::vector<int> out = m.greedy(d.src[i], d.src[i].size() + 5);
      exact += out == d.tgt[i];
      for (size_t j = 0; j < d.tgt[i].size(); ++j) right += j < out.size() && out[j] == d.tgt[i][j];
      total += d.tgt[i].size();
    }
    e.exact = static_cast<double>(exact) / n;
    e.token_acc = static_cast<double>(right) / total;
  }
  return e;
}

std::unique_ptr<nn::Optimizer> make_optimizer(const std::string& name, const ParamList& ps,
                                              float lr, float wd) {
  if (name == "adam") return std::make_unique<nn::Adam>(ps, lr, 0.9f, 0.999f, 1e-8f, wd);
  if (name == "adamw") return std::make_unique<nn::AdamW>(ps, lr, 0.9f, 0.999f, 1e-8f, wd);
  if (name == "sgd") return std::make_unique<nn::SGD>(ps, lr, 0.9f, wd);
  throw UsageError("--optimizer must be adam, adamw or sgd, got '" + name + "'");
}

}  // namespace

// ---------------------------------------------------------------- train
int cmd_train_toy(const Argv& argv) {
  TrainFlagDefaults d;
  d.out = "toy-reverse.safetensors";
  Args a("train toy-reverse", with_common_train_flags(flag_specs(toy_flags()), d));
  if (a.parse_or_help(argv, "attnlab train toy-reverse [flags]",
                            "Trains a GRU encoder-decoder with dot attention to reverse random symbol\n"
                            "sequences and writes one model file (weights, config and vocabulary).")) return 0;
  a.no_positional();
  TrainScaffold run(a, "train toy-reverse");
  const models::ToyConfig cfg = toy_config_from(a);
  const uint64_t seed = run.seed();
  const size_t samples = a.u64("samples", 1, 1 << 26);
  nn::LrSchedule sched = run.schedule(a);
  sched.step_size = 1000;

  const models::ToyData train = models::make_toy_reverse(samples, cfg, seed);
  const models::ToyData val = models::make_toy_reverse(a.u64("val-samples", 1, 1 << 24), cfg, seed + 1);
  models::ToySeq2Seq m(cfg, seed);
  ParamList ps;
  m.collect(ps);
  auto opt = make_optimizer(a.get("optimizer"), ps, sched.base_lr,
                            static_cast<float>(a.num("weight-decay", 0, 10)));
  std::vector<size_t> lens;
  for (auto& s : train.src) lens.push_back(s.size());
  data::Batcher batcher(lens, run.batch(), seed, true, !a.flag("no-bucket"));
  nn::TrainOptions to = run.train_options(batcher.num_batches());
  to.eval_every = a.u64("eval-every");
  sched.total = to.epochs * batcher.num_batches();
  // what must match between a run and its resumption
  run.set_run_id({{"model", "toy-reverse"},
                  {"config", cfg.to_json()},
                  {"seed", seed},
                  {"batch", run.batch()},
                  {"samples", samples},
                  {"optimizer", a.get("optimizer")},
                  {"epochs", to.epochs},
                  {"lr", a.get("lr")},
                  {"schedule", a.get("schedule")},
                  {"warmup", sched.warmup}});
  to.checkpoint_meta["run"] = run.run_id();
  nn::Trainer trainer(ps, *opt, sched, batcher, to);
  run.resume(trainer);

  nn::TrainHooks hooks = run.hooks(trainer);
  hooks.step = [&](const std::vector<size_t>& idx, Rng&) {
    return static_cast<double>(m.train_step(models::make_toy_batch(train, idx)));
  };
  hooks.evaluate = [&]() { return evaluate_toy(m, val, false).loss; };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "epoch %zu step %zu  loss %.4f  val_loss %.4f  lr %.2e  %.0f samples/s",
                  ev.epoch + 1, ev.step, ev.loss, ev.eval, ev.lr, ev.samples_per_s);
    run.event({{"step", ev.step}, {"epoch", ev.epoch + 1}, {"loss", ev.loss}, {"val_loss", ev.eval},
               {"lr", ev.lr}, {"samples_per_s", ev.samples_per_s}},
              buf);
  };
  run.run(trainer, hooks);
  const Eval ev = evaluate_toy(m, val, true);
  run.write(run.out(), m.save({run.dtype(),
                               {{"trained_steps", std::to_string(trainer.step())},
                                {"val_loss", std::to_string(ev.loss)}}}));
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "saved %s (%zu parameters, %s)  val_loss %.4f  token_acc %.3f  exact %.3f  %.1fs",
                run.out().c_str(), ps.count(), io::dtype_name(run.dtype()), ev.loss, ev.token_acc,
                ev.exact, run.elapsed());
  run.done({{"model", run.out()}, {"steps", trainer.step()}, {"val_loss", ev.loss},
            {"val_token_acc", ev.token_acc}, {"val_exact_match", ev.exact}, {"params", ps.count()}},
           buf);
  return 0;
}

// ---------------------------------------------------------------- eval / predict
int cmd_eval_toy(const models::ModelFile& f, const Argv& argv) {
  Args a("eval", {model_flag("toy-reverse model file"),
                  {"samples", "N", "512", "generated evaluation sequences"},
                  eval_seed_flag("seed of the evaluation data"),
                  json_flag()});
  if (a.parse_or_help(argv, "attnlab eval --model TOY.safetensors [flags]",
                            "Evaluates a toy-reverse model on freshly generated data: token\n"
                            "cross-entropy, token accuracy and exact-match rate of greedy decoding.")) return 0;
  a.no_positional("eval takes no positional arguments (use --model PATH)");
  std::unique_ptr<models::ToySeq2Seq> m;
  try {
    m = models::ToySeq2Seq::load(f.tensors);
  } catch (const Error& e) {
    throw Error(f.source + ": " + e.what());
  }
  const models::ToyData d = models::make_toy_reverse(a.u64("samples", 1, 1 << 24), m->cfg, a.u64("seed"));
  const Eval e = evaluate_toy(*m, d, true);
  if (a.flag("json"))
    std::cout << json({{"model", f.source}, {"kind", f.info.kind}, {"samples", d.src.size()},
                       {"loss", e.loss}, {"token_acc", e.token_acc}, {"exact_match", e.exact}})
                     .dump()
              << std::endl;
  else
    std::printf("%s (%s): loss %.4f  token_acc %.4f  exact_match %.4f  on %zu sequences\n",
                f.source.c_str(), f.info.kind.c_str(), e.loss, e.token_acc, e.exact, d.src.size());
  return 0;
}

int cmd_predict_toy(const models::ModelFile& f, const Argv& argv) {
  Args a("predict", {model_flag("toy-reverse model file"),
                     {"input", "TEXT", "", "space-separated tokens (or give them as arguments)"},
                     {"max-len", "N", "64", "longest output"},
                     json_flag("print tokens and attention weights as JSON")});
  if (a.parse_or_help(argv, "attnlab predict --model TOY.safetensors [--input 'TOKENS' | TOKENS...]",
                            "Decodes one input greedily and prints the output tokens and, with --json,\n"
                            "the attention weights (one row per output step).")) return 0;
  std::vector<std::string> toks = a.positional();
  {
    std::istringstream is(a.get("input"));
    std::string t;
    while (is >> t) toks.push_back(t);
  }
  if (toks.empty()) throw UsageError("predict needs an input: --input 's1 s2 s3' or tokens as arguments");
  const std::vector<std::string>& vocab = f.info.vocab;
  for (const auto& t : toks)
    if (std::find(vocab.begin() + std::min<long>(3, long(vocab.size())), vocab.end(), t) == vocab.end()) {
      std::string known;
      for (size_t i = 3; i < vocab.size(); ++i) known += (i > 3 ? " " : "") + vocab[i];
      throw UsageError("unknown token '" + t + "'; the model knows: " + known);
    }
  const json r = models::load_model(f)->predict(
      {{"tokens", toks}, {"max_len", a.u64("max-len", 1, 100000)}});
  if (a.flag("json")) {
    std::cout << r.dump() << std::endl;
  } else {
    const auto words = r["output"].get<std::vector<std::string>>();
    for (size_t i = 0; i < words.size(); ++i) std::cout << (i ? " " : "") << words[i];
    std::cout << std::endl;
  }
  return 0;
}

// ---------------------------------------------------------------- bench
int cmd_bench(const Argv& argv) {
  const std::vector<ConfigFlag<models::ToyConfig>> sizes = toy_size_flags("40", "vocabulary size", "64", "128");
  std::vector<FlagSpec> flags = {{"batch", "N", "64", "batch size"},
                                 {"seq", "N", "12", "source and target length"}};
  for (const FlagSpec& f : flag_specs(sizes)) flags.push_back(f);
  for (FlagSpec f : {FlagSpec{"steps", "N", "30", "timed training steps"},
                     FlagSpec{"warmup", "N", "3", "untimed steps first"}, json_flag()})
    flags.push_back(std::move(f));
  Args a("bench", std::move(flags));
  if (a.parse_or_help(argv, "attnlab bench [flags]",
                            "Training throughput (samples/s, one thread) of the toy GRU\n"
                            "encoder-decoder with dot attention: forward, backward and an Adam step.\n"
                            "scripts/bench_torch_train.py measures PyTorch on the same shapes.")) return 0;
  models::ToyConfig cfg;
  read_config_flags(a, sizes, cfg);
  cfg.min_len = cfg.max_len = a.u64("seq", 1, 1000);
  const size_t B = a.u64("batch", 1, 1 << 16), steps = a.u64("steps", 1, 1 << 20);
  // fixed target length = seq (drop the last symbol so tgt_in/out have seq steps)
  models::ToyData dd = models::make_toy_reverse(B, cfg, 1);
  for (auto& t : dd.tgt) t.pop_back();
  std::vector<size_t> idx(B);
  for (size_t i = 0; i < B; ++i) idx[i] = i;
  const models::ToyBatch b = models::make_toy_batch(dd, idx);
  models::ToySeq2Seq m(cfg, 1);
  ParamList ps;
  m.collect(ps);
  nn::Adam adam(ps, 1e-3f);
  auto one = [&]() {
    ps.zero_grad();
    m.train_step(b);
    adam.step();
  };
  for (size_t i = 0; i < a.u64("warmup"); ++i) one();
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < steps; ++i) one();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double sps = static_cast<double>(B * steps) / secs;
  if (a.flag("json"))
    std::cout << json({{"bench", "train_gru_seq2seq_attn"}, {"batch", B}, {"seq", cfg.max_len},
                       {"vocab", cfg.vocab}, {"emb", cfg.emb}, {"hidden", cfg.hidden},
                       {"samples_per_s", sps}, {"ms_per_step", 1e3 * secs / steps},
                       {"simd", kernels::simd_arch_name()}})
                     .dump()
              << std::endl;
  else
    std::printf("GRU seq2seq+attention training: %.0f samples/s (%.2f ms/step, batch %zu, T=%zu, %s)\n",
                sps, 1e3 * secs / steps, B, cfg.max_len, kernels::simd_arch_name());
  return 0;
}

}  // namespace attnlab::cli
