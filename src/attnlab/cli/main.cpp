// The attnlab command: train / eval / predict / bench / help.
// Exit codes: 0 success, 1 runtime failure (bad file, diverged run, ...),
// 2 usage error (unknown command or flag, bad flag value).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/toy_seq2seq.hpp"
#include "attnlab/nn/train.hpp"

using namespace attnlab;
using attnlab::cli::Args;
using attnlab::cli::FlagSpec;
using attnlab::cli::UsageError;
using json = nlohmann::json;

namespace {

const char* kMainHelp =
    "usage: attnlab <command> [flags]\n"
    "\n"
    "commands:\n"
    "  train <model>   train a model and save it as one .safetensors file\n"
    "  eval            evaluate a saved model file\n"
    "  predict         run a saved model on an input\n"
    "  generate        continue a prompt with a character language model\n"
    "  bench           measure training throughput on this machine\n"
    "  experiment mmoe the MMoE paper's synthetic experiment, softmax vs attention gates\n"
    "  help [command]  show help (also: attnlab <command> --help)\n"
    "\n"
    "models: toy-reverse (GRU encoder-decoder with dot attention that learns to\n"
    "        reverse random symbol sequences; a built-in check of the engine)\n"
    "        mmoe (multi-task mixture of experts on the synthetic data; see\n"
    "        attnlab train mmoe --help)\n"
    "        han (hierarchical attention network, SpamAssassin spam vs ham; see\n"
    "        attnlab train han --help; eval/predict accept HAN model files)\n"
    "        lm (Transformer-XL character language model or its memory-less\n"
    "        baseline on the State of the Union addresses; see attnlab train lm\n"
    "        --help; eval and generate accept its model files)\n"
    "\n"
    "exit codes: 0 ok, 1 runtime failure, 2 usage error\n";

// ---------------------------------------------------------------- flag sets
std::vector<FlagSpec> toy_model_flags() {
  return {
      {"vocab", "N", "13", "vocabulary size incl. 3 special tokens (toy-reverse)"},
      {"emb", "N", "32", "embedding width"},
      {"hidden", "N", "64", "GRU hidden size"},
      {"min-len", "N", "3", "shortest generated sequence"},
      {"max-len", "N", "8", "longest generated sequence"},
  };
}

std::vector<FlagSpec> train_flags() {
  std::vector<FlagSpec> f = toy_model_flags();
  std::vector<FlagSpec> more = {
      {"epochs", "N", "10", "passes over the training set"},
      {"batch-size", "N", "32", "sequences per step"},
      {"samples", "N", "4096", "generated training sequences"},
      {"val-samples", "N", "256", "generated validation sequences"},
      {"optimizer", "NAME", "adam", "adam, adamw or sgd (momentum 0.9)"},
      {"lr", "F", "0.01", "peak learning rate"},
      {"weight-decay", "F", "0", "weight decay (decoupled for adamw)"},
      {"schedule", "NAME", "cosine", "decay after warm-up: constant, cosine, linear or step"},
      {"warmup", "N", "20", "linear warm-up steps"},
      {"clip", "F", "5", "clip gradients to this global L2 norm (0 = off)"},
      {"no-bucket", "", "", "do not bucket batches by length"},
      {"seed", "N", "1", "seed for data, initialisation and shuffling"},
      {"max-steps", "N", "0",
       "stop after this many steps; the schedule still spans all epochs, so --resume continues "
       "the same run (0 = run to the end)"},
      {"eval-every", "N", "0", "evaluate every N steps (0 = every epoch)"},
      {"out", "PATH", "toy-reverse.safetensors", "where to write the trained model"},
      {"dtype", "f32|f16", "f32", "storage type of the model file (f16 halves its size)"},
      {"checkpoint", "PATH", "", "write a resumable checkpoint here"},
      {"checkpoint-every", "N", "0", "steps between checkpoints (0 = every epoch)"},
      {"resume", "PATH", "", "continue from a checkpoint (use the same flags as the first run)"},
      {"json", "", "", "print JSON lines (one per evaluation, then a summary) on stdout"},
      {"quiet", "", "", "no progress bar and no per-epoch lines"},
  };
  f.insert(f.end(), more.begin(), more.end());
  return f;
}

nn::ToyConfig toy_config_from(const Args& a) {
  nn::ToyConfig c;
  c.vocab = a.u64("vocab", 4, 100000);
  c.emb = a.u64("emb", 1, 4096);
  c.hidden = a.u64("hidden", 1, 4096);
  c.min_len = a.u64("min-len", 1, 1000);
  c.max_len = a.u64("max-len", 1, 1000);
  if (c.min_len > c.max_len) throw UsageError("--min-len must not exceed --max-len");
  return c;
}

struct Eval {
  double loss = 0, token_acc = 0, exact = 0;
};

Eval evaluate_toy(const nn::ToySeq2Seq& m, const nn::ToyData& d, bool decode) {
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
    e.loss += m.loss(nn::make_toy_batch(d, idx)) * static_cast<double>(toks);
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

// ---------------------------------------------------------------- train
int cmd_train(const std::vector<std::string>& argv) {
  Args a("train", train_flags());
  a.parse(argv);
  const std::string usage = "attnlab train <model> [flags]";
  if (a.flag("help")) {
    std::cout << a.help(usage,
                        "Trains <model> on generated data and writes one model file (weights,\n"
                        "config and vocabulary). Models: toy-reverse.");
    return 0;
  }
  if (a.positional().size() != 1)
    throw UsageError("train needs exactly one model name (known: toy-reverse); see 'attnlab train --help'");
  const std::string model = a.positional()[0];
  if (model != "toy-reverse")
    throw UsageError("unknown model '" + model + "' (known: toy-reverse)");
  const nn::ToyConfig cfg = toy_config_from(a);
  const bool as_json = a.flag("json"), quiet = a.flag("quiet");
  const uint64_t seed = a.u64("seed");
  const size_t batch = a.u64("batch-size", 1, 1 << 20);
  const size_t samples = a.u64("samples", 1, 1 << 26);
  const io::DType dtype = [&] {
    try {
      return io::dtype_from_string(a.get("dtype"));
    } catch (const Error& e) {
      throw UsageError(e.what());
    }
  }();
  nn::LrSchedule sched;
  sched.base_lr = static_cast<float>(a.num("lr", 0, 10));
  sched.warmup = a.u64("warmup");
  try {
    sched.decay = nn::decay_from_string(a.get("schedule"));
  } catch (const Error& e) {
    throw UsageError(std::string("--schedule: ") + e.what());
  }
  sched.step_size = 1000;

  const nn::ToyData train = nn::make_toy_reverse(samples, cfg, seed);
  const nn::ToyData val = nn::make_toy_reverse(a.u64("val-samples", 1, 1 << 24), cfg, seed + 1);
  nn::ToySeq2Seq m(cfg, seed);
  ParamList ps;
  m.collect(ps);
  auto opt = make_optimizer(a.get("optimizer"), ps, sched.base_lr,
                            static_cast<float>(a.num("weight-decay", 0, 10)));
  std::vector<size_t> lens;
  for (auto& s : train.src) lens.push_back(s.size());
  data::Batcher batcher(lens, batch, seed, true, !a.flag("no-bucket"));
  nn::TrainOptions to;
  to.epochs = a.u64("epochs", 1, 1000000);
  const size_t stop_at = a.u64("max-steps") ? a.u64("max-steps") : SIZE_MAX;
  to.clip_norm = static_cast<float>(a.num("clip", 0, 1e6));
  to.eval_every = a.u64("eval-every");
  to.seed = seed;
  const std::string ckpt_path = a.get("checkpoint");
  to.checkpoint_every = ckpt_path.empty() ? 0
                        : a.u64("checkpoint-every") ? a.u64("checkpoint-every")
                                                    : batcher.num_batches();
  sched.total = to.epochs * batcher.num_batches();

  // what must match between a run and its resumption
  const std::string run_id = json({{"model", model},
                                   {"config", cfg.to_json()},
                                   {"seed", seed},
                                   {"batch", batch},
                                   {"samples", samples},
                                   {"optimizer", a.get("optimizer")},
                                   {"epochs", to.epochs},
                                   {"lr", a.get("lr")},
                                   {"schedule", a.get("schedule")},
                                   {"warmup", sched.warmup}})
                                 .dump();
  to.checkpoint_meta["run"] = run_id;
  nn::Trainer trainer(ps, *opt, sched, batcher, to);
  if (!a.get("resume").empty()) {
    const io::SafeTensors ck = io::read_file(a.get("resume"));
    if (ck.meta("run") != run_id)
      throw Error("checkpoint '" + a.get("resume") + "' was made by a different run:\n  saved: " +
                  ck.meta("run") + "\n  now:   " + run_id +
                  "\nrerun with the flags of the first run to resume it");
    trainer.restore(ck);
    if (!quiet && !as_json)
      std::cerr << "resumed from " << a.get("resume") << " at step " << trainer.step() << "\n";
  }

  const bool tty = isatty(fileno(stderr)) != 0;
  nn::ProgressBar bar(&std::cerr, tty && !quiet && !as_json,
                     std::min(trainer.total_steps(), stop_at));
  const auto t0 = std::chrono::steady_clock::now();
  nn::TrainHooks hooks;
  hooks.step = [&](const std::vector<size_t>& idx, Rng&) {
    return static_cast<double>(m.train_step(nn::make_toy_batch(train, idx)));
  };
  hooks.evaluate = [&]() { return evaluate_toy(m, val, false).loss; };
  hooks.on_checkpoint = [&](const std::vector<uint8_t>& bytes, size_t) {
    io::write_bytes(ckpt_path, bytes);
  };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    if (as_json) {
      std::cout << json({{"event", "eval"},
                         {"step", ev.step},
                         {"epoch", ev.epoch + 1},
                         {"loss", ev.loss},
                         {"val_loss", ev.eval},
                         {"lr", ev.lr},
                         {"samples_per_s", ev.samples_per_s}})
                       .dump()
                << std::endl;
    } else if (!quiet) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "epoch %zu step %zu  loss %.4f  val_loss %.4f  lr %.2e  %.0f samples/s",
                    ev.epoch + 1, ev.step, ev.loss, ev.eval, ev.lr, ev.samples_per_s);
      if (bar.enabled()) std::cerr << "\r\033[K";
      std::cout << buf << std::endl;
    }
  };
  trainer.run(hooks, &bar, stop_at);
  if (!ckpt_path.empty()) io::write_bytes(ckpt_path, trainer.checkpoint());
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Eval ev = evaluate_toy(m, val, true);
  const std::string out = a.get("out");
  io::ModelInfo info{"toy-reverse", cfg.to_json(), nn::toy_vocab(cfg),
                     {{"trained_steps", std::to_string(trainer.step())},
                      {"val_loss", std::to_string(ev.loss)}}};
  io::write_bytes(out, io::save_model(info, ps, dtype));
  if (as_json) {
    std::cout << json({{"event", "done"},
                       {"model", out},
                       {"steps", trainer.step()},
                       {"seconds", secs},
                       {"val_loss", ev.loss},
                       {"val_token_acc", ev.token_acc},
                       {"val_exact_match", ev.exact},
                       {"params", ps.count()}})
                     .dump()
              << std::endl;
  } else if (!quiet) {
    std::printf("saved %s (%zu parameters, %s)  val_loss %.4f  token_acc %.3f  exact %.3f  %.1fs\n",
                out.c_str(), ps.count(), io::dtype_name(dtype), ev.loss, ev.token_acc, ev.exact,
                secs);
  }
  return 0;
}

// ---------------------------------------------------------------- load a model file
struct Loaded {
  io::ModelInfo info;
  std::unique_ptr<nn::ToySeq2Seq> model;
};
Loaded load_model(const std::string& path) {
  if (path.empty()) throw UsageError("--model PATH is required");
  const io::SafeTensors st = io::read_file(path);
  Loaded l;
  l.info = io::model_info(st);
  if (l.info.kind != "toy-reverse")
    throw Error(path + ": model kind '" + l.info.kind +
                "' is not supported by this command (known: toy-reverse)");
  const nn::ToyConfig cfg = nn::ToyConfig::from_json(l.info.config);
  l.model = std::make_unique<nn::ToySeq2Seq>(cfg, 0);
  ParamList ps;
  l.model->collect(ps);
  try {
    io::load_params(st, ps);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  return l;
}

int cmd_eval(const std::vector<std::string>& argv) {
  Args a("eval", {{"model", "PATH", "", "model file written by 'attnlab train'"},
                  {"samples", "N", "512", "generated evaluation sequences"},
                  {"seed", "N", "12345", "seed of the evaluation data"},
                  {"json", "", "", "print one JSON object on stdout"}});
  a.parse(argv);
  if (a.flag("help")) {
    std::cout << a.help("attnlab eval --model PATH [flags]",
                        "Evaluates a saved model on freshly generated data: token cross-entropy,\n"
                        "token accuracy and exact-match rate of greedy decoding.");
    return 0;
  }
  if (!a.positional().empty()) throw UsageError("eval takes no positional arguments (use --model PATH)");
  Loaded l = load_model(a.get("model"));
  const nn::ToyData d = nn::make_toy_reverse(a.u64("samples", 1, 1 << 24), l.model->cfg, a.u64("seed"));
  const Eval e = evaluate_toy(*l.model, d, true);
  if (a.flag("json"))
    std::cout << json({{"model", a.get("model")}, {"kind", l.info.kind}, {"samples", d.src.size()},
                       {"loss", e.loss}, {"token_acc", e.token_acc}, {"exact_match", e.exact}})
                     .dump()
              << std::endl;
  else
    std::printf("%s (%s): loss %.4f  token_acc %.4f  exact_match %.4f  on %zu sequences\n",
                a.get("model").c_str(), l.info.kind.c_str(), e.loss, e.token_acc, e.exact,
                d.src.size());
  return 0;
}

int cmd_predict(const std::vector<std::string>& argv) {
  Args a("predict", {{"model", "PATH", "", "model file written by 'attnlab train'"},
                     {"input", "TEXT", "", "space-separated tokens (or give them as arguments)"},
                     {"max-len", "N", "64", "longest output"},
                     {"json", "", "", "print tokens and attention weights as JSON"}});
  a.parse(argv);
  if (a.flag("help")) {
    std::cout << a.help("attnlab predict --model PATH [--input 'TOKENS' | TOKENS...]",
                        "Decodes one input greedily and prints the output tokens and, with --json,\n"
                        "the attention weights (one row per output step).");
    return 0;
  }
  Loaded l = load_model(a.get("model"));
  std::vector<std::string> toks = a.positional();
  {
    std::istringstream is(a.get("input"));
    std::string t;
    while (is >> t) toks.push_back(t);
  }
  if (toks.empty()) throw UsageError("predict needs an input: --input 's1 s2 s3' or tokens as arguments");
  std::vector<int> ids;
  for (auto& t : toks) {
    int id = -1;
    for (size_t i = 3; i < l.info.vocab.size(); ++i)
      if (l.info.vocab[i] == t) id = static_cast<int>(i);
    if (id < 0) {
      std::string known;
      for (size_t i = 3; i < l.info.vocab.size(); ++i) known += (i > 3 ? " " : "") + l.info.vocab[i];
      throw UsageError("unknown token '" + t + "'; the model knows: " + known);
    }
    ids.push_back(id);
  }
  std::vector<float> attn;
  const std::vector<int> out = l.model->greedy(ids, a.u64("max-len", 1, 100000), &attn);
  std::vector<std::string> words;
  for (int id : out) words.push_back(l.info.vocab.at(static_cast<size_t>(id)));
  if (a.flag("json")) {
    const size_t rows = ids.empty() ? 0 : attn.size() / ids.size();
    std::cout << json({{"input", toks}, {"output", words}, {"attention", attn},
                       {"rows", rows}, {"cols", ids.size()}})
                     .dump()
              << std::endl;
  } else {
    for (size_t i = 0; i < words.size(); ++i) std::cout << (i ? " " : "") << words[i];
    std::cout << std::endl;
  }
  return 0;
}

// ---------------------------------------------------------------- bench
int cmd_bench(const std::vector<std::string>& argv) {
  Args a("bench", {{"batch", "N", "64", "batch size"},
                   {"seq", "N", "12", "source and target length"},
                   {"vocab", "N", "40", "vocabulary size"},
                   {"emb", "N", "64", "embedding width"},
                   {"hidden", "N", "128", "GRU hidden size"},
                   {"steps", "N", "30", "timed training steps"},
                   {"warmup", "N", "3", "untimed steps first"},
                   {"json", "", "", "print one JSON object on stdout"}});
  a.parse(argv);
  if (a.flag("help")) {
    std::cout << a.help("attnlab bench [flags]",
                        "Training throughput (samples/s, one thread) of the toy GRU\n"
                        "encoder-decoder with dot attention: forward, backward and an Adam step.\n"
                        "scripts/bench_torch_train.py measures PyTorch on the same shapes.");
    return 0;
  }
  nn::ToyConfig cfg;
  cfg.vocab = a.u64("vocab", 4, 100000);
  cfg.emb = a.u64("emb", 1, 4096);
  cfg.hidden = a.u64("hidden", 1, 4096);
  cfg.min_len = cfg.max_len = a.u64("seq", 1, 1000);
  const size_t B = a.u64("batch", 1, 1 << 16), steps = a.u64("steps", 1, 1 << 20);
  const nn::ToyData d = nn::make_toy_reverse(B, cfg, 1);
  std::vector<size_t> idx(B);
  for (size_t i = 0; i < B; ++i) idx[i] = i;
  // fixed target length = seq (drop the last symbol so tgt_in/out have seq steps)
  nn::ToyData dd = d;
  for (auto& t : dd.tgt) t.pop_back();
  const nn::ToyBatch b = nn::make_toy_batch(dd, idx);
  nn::ToySeq2Seq m(cfg, 1);
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      std::cerr << kMainHelp;
      return 2;
    }
    const std::string cmd = args[0];
    std::vector<std::string> rest(args.begin() + 1, args.end());
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      if (!rest.empty() && rest[0] != "help") {
        std::vector<std::string> h = {"--help"};
        if (rest[0] == "train") return cmd_train(h);
        if (rest[0] == "eval") return cmd_eval(h);
        if (rest[0] == "predict") return cmd_predict(h);
        if (rest[0] == "bench") return cmd_bench(h);
        if (rest[0] == "experiment") return cli::cmd_experiment(h);
        if (rest[0] == "generate") return cli::cmd_generate(h);
        throw UsageError("no help for unknown command '" + rest[0] + "'");
      }
      std::cout << kMainHelp;
      return 0;
    }
    if (cmd == "train" && !rest.empty() && rest[0] == "mmoe")
      return cli::cmd_train_mmoe(std::vector<std::string>(rest.begin() + 1, rest.end()));
    if (cmd == "train" && !rest.empty() && rest[0] == "lm")
      return cli::cmd_train_lm(std::vector<std::string>(rest.begin() + 1, rest.end()));
    if (cmd == "eval" && cli::is_lm_model(rest)) return cli::cmd_eval_lm(rest);
    if (cmd == "generate") return cli::cmd_generate(rest);
    if (cmd == "train" && !rest.empty() && rest[0] == "han")
      return cli::cmd_train_han(std::vector<std::string>(rest.begin() + 1, rest.end()));
    if (cmd == "eval" && cli::is_han_model(rest)) return cli::cmd_eval_han(rest);
    if (cmd == "predict" && cli::is_han_model(rest)) return cli::cmd_predict_han(rest);
    if (cmd == "train" && !rest.empty() && (rest[0] == "g2p" || rest[0] == "dates"))
      return cli::cmd_train_seq2seq(rest);
    if (cmd == "eval" && cli::is_seq2seq_model(rest)) return cli::cmd_eval_seq2seq(rest);
    if (cmd == "predict" && cli::is_seq2seq_model(rest)) return cli::cmd_predict_seq2seq(rest);
    if (cmd == "train") return cmd_train(rest);
    if (cmd == "experiment") return cli::cmd_experiment(rest);
    if (cmd == "eval") return cmd_eval(rest);
    if (cmd == "predict") return cmd_predict(rest);
    if (cmd == "bench") return cmd_bench(rest);
    throw UsageError("unknown command '" + cmd + "' (commands: train, eval, predict, generate, bench, experiment, help)");
  } catch (const UsageError& e) {
    std::cerr << "attnlab: usage error: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "attnlab: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "attnlab: unexpected failure: " << e.what() << "\n";
    return 1;
  }
}
