// attnlab train g2p | train dates | eval / predict on a seq2seq model file.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/dates.hpp"
#include "attnlab/data/seq_metrics.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {
using json = nlohmann::json;
using models::Seq2Seq;
using models::Seq2SeqConfig;

// ---------------------------------------------------------------- tasks
// A task = its data (pairs for training, references for evaluation) and vocabularies.
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

struct DateData {
  data::DateSplit split;
};

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

// evaluation of a G2P model on some entries
struct G2PEval {
  data::G2PScore score;
  data::G2PScore stripped;  // the same outputs and references with stress digits removed
  size_t words = 0;
  double seconds = 0;
};
G2PEval eval_g2p(const models::Translator& m, const data::CmuDict& dict, const std::vector<size_t>& entries,
                 size_t limit, size_t beam, float alpha = 0.6f,
                 models::DecodePrecision precision = models::DecodePrecision::Int8) {
  G2PEval e;
  const auto t0 = std::chrono::steady_clock::now();
  models::DecodeOptions o;
  o.precision = precision;
  o.beam = beam;
  o.length_alpha = alpha;
  o.head_maps = false;
  const size_t n = limit ? std::min(limit, entries.size()) : entries.size();
  for (size_t i = 0; i < n; ++i) {
    const data::CmuEntry& en = dict.entries[entries[i]];
    data::Pron hyp;
    if (en.word.size() <= m.max_src_len()) hyp = m.translate(en.word, o).tokens;
    e.score.add(hyp, en.prons);
    if (dict.keep_stress) e.stripped.add(strip_pron(hyp), strip_prons(en.prons));
  }
  e.words = n;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

struct DateEval {
  data::ExactMatch em;
  double seconds = 0;
};
DateEval eval_dates(const models::Translator& m, const std::vector<data::DatePair>& pairs, size_t limit,
                    size_t beam, float alpha = 0.6f,
                    models::DecodePrecision precision = models::DecodePrecision::Int8) {
  DateEval e;
  const auto t0 = std::chrono::steady_clock::now();
  models::DecodeOptions o;
  o.precision = precision;
  o.beam = beam;
  o.length_alpha = alpha;
  o.head_maps = false;
  const size_t n = limit ? std::min(limit, pairs.size()) : pairs.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string out = m.translate(pairs[i].input, o).text;
    e.em.add(out, pairs[i].output, size_t(pairs[i].format));
  }
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return e;
}

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

models::DecodePrecision parse_precision(const std::string& s) {
  if (s == "int8") return models::DecodePrecision::Int8;
  if (s == "int16") return models::DecodePrecision::Int16;
  if (s == "f32") return models::DecodePrecision::F32;
  throw UsageError("--precision must be int8, int16 or f32, got '" + s + "'");
}
const char* precision_name(models::DecodePrecision p) {
  return p == models::DecodePrecision::Int8 ? "int8" : p == models::DecodePrecision::Int16 ? "int16" : "f32";
}

io::DType parse_dtype(const std::string& s) {
  try {
    return io::dtype_from_string(s);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

void write_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  io::write_bytes(tmp, bytes);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("could not rename " + tmp + " to " + path);
}

std::vector<FlagSpec> seq2seq_train_flags() {
  return {
      {"arch", "rnn|transformer", "rnn", "model kind (g2p --arch transformer: see "
                                         "'attnlab train g2p --arch transformer --help')"},
      {"data", "PATH", data::kCmudictRelPath, "g2p: CMUdict text (cmudict-0.7b format)"},
      {"split-seed", "N", "1234", "seed of the train/valid/test split (90/5/5, by word or date)"},
      {"stress", "", "", "g2p: keep CMUdict's stress digits (vowels as AH0/AH1/AH2)"},
      {"rnn", "gru|lstm", "", "recurrent cell (default: g2p gru, dates lstm)"},
      {"uni", "", "", "unidirectional encoder (dates default; g2p default is bidirectional)"},
      {"bi", "", "", "bidirectional encoder"},
      {"no-input-feed", "", "", "do not feed the attentional vector into the next step"},
      {"input-feed", "", "", "feed the attentional vector into the next step"},
      {"score", "NAME", "", "additive, general, dot, scaled_dot or local_p (default: g2p "
                            "additive, dates dot)"},
      {"emb", "N", "0", "embedding width (0 = task default: 64)"},
      {"hidden", "N", "0", "encoder hidden size per direction (0 = g2p 128, dates 64)"},
      {"attn-dim", "N", "0", "additive / local-p attention size (0 = decoder hidden / 2)"},
      {"combine", "N", "0", "attentional vector size (0 = g2p 256, dates 64)"},
      {"window", "N", "3", "local_p window half-width D"},
      {"epochs", "N", "10", "passes over the training pairs"},
      {"batch-size", "N", "64", "pairs per step"},
      {"max-train", "N", "0", "use only a seeded sample of N training pairs (0 = all)"},
      {"lr", "F", "0.002", "peak learning rate (Adam)"},
      {"schedule", "NAME", "cosine", "decay after warm-up: constant, cosine, linear or step"},
      {"warmup", "N", "200", "linear warm-up steps"},
      {"clip", "F", "5", "clip gradients to this global L2 norm (0 = off)"},
      {"label-smoothing", "F", "0", "label smoothing of the token cross-entropy"},
      {"seed", "N", "1", "seed of the initialisation and the batch order"},
      {"max-steps", "N", "0", "stop after this many steps (the schedule still spans all epochs)"},
      {"eval-every", "N", "0", "validate every N steps (0 = every epoch)"},
      {"val-size", "N", "1000", "validation words (g2p) or pairs (dates) used during training"},
      {"out", "PATH", "", "model file to write (also rewritten at every validation)"},
      {"dtype", "f32|f16", "f16", "storage type of the model file"},
      {"checkpoint", "PATH", "", "resumable checkpoint file"},
      {"checkpoint-every", "N", "500", "steps between checkpoints"},
      {"resume", "PATH", "", "continue from a checkpoint (same flags as the first run)"},
      {"init-from", "PATH", "", "start from the weights of a model file with the same config (a "
                                "new run: fresh optimizer and schedule; recorded in the file)"},
      {"json", "", "", "print JSON lines on stdout"},
      {"quiet", "", "", "no progress bar and no per-validation lines"},
  };
}

}  // namespace

// ---------------------------------------------------------------- train
int cmd_train_seq2seq(const std::vector<std::string>& argv) {
  for (size_t i = 1; i < argv.size(); ++i)
    if (argv[i] == "--arch=transformer" ||
        (argv[i] == "--arch" && i + 1 < argv.size() && argv[i + 1] == "transformer"))
      return cmd_train_transformer(argv);
  Args a("train", seq2seq_train_flags());
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  a.parse(rest);
  const std::string task = argv.at(0);
  if (a.flag("help")) {
    std::cout << a.help(
        "attnlab train g2p|dates [flags]",
        "Trains a seq2seq model with attention and writes one model file.\n"
        "  g2p:   CMUdict spelling -> phonemes (stress stripped unless --stress), split by\n"
        "         word 90/5/5;\n"
        "         default: bi-GRU 2x128 encoder, GRU 256 decoder with input feeding,\n"
        "         additive (Bahdanau) attention, attentional vector 256.\n"
        "  dates: the 20 input formats of the TensorFlow.js example -> YYYY-MM-DD, 1950-2049,\n"
        "         split by date 90/5/5; default: the tfjs architecture (embedding 64, LSTM 64\n"
        "         encoder and decoder, Luong dot attention, Dense 64 tanh, softmax).\n"
        "Validation during training: greedy WER (g2p) or exact-match error (dates).");
    return 0;
  }
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional()[0] + "'");
  if (task != "g2p" && task != "dates") throw UsageError("unknown seq2seq task '" + task + "'");
  if (a.get("arch") != "rnn")
    throw UsageError("--arch must be rnn or transformer, got '" + a.get("arch") + "'");
  const bool g2p = task == "g2p";
  const bool stress = a.flag("stress");
  if (stress && !g2p) throw UsageError("--stress applies to g2p only");
  const bool as_json = a.flag("json"), quiet = a.flag("quiet");
  const uint64_t seed = a.u64("seed"), split_seed = a.u64("split-seed");

  Seq2SeqConfig cfg = g2p ? Seq2SeqConfig() : models::tfjs_dates_config();
  if (g2p) {
    cfg.task = "g2p";
    cfg.max_src_len = 40;
    cfg.max_tgt_len = 40;
    cfg.output_sep = " ";
  }
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
  const std::string out = a.get("out").empty() ? task + ".safetensors" : a.get("out");
  const io::DType dtype = parse_dtype(a.get("dtype"));

  // data
  std::vector<std::vector<int>> src, tgt;
  data::Vocab sv, tv;
  G2PData gd;
  std::vector<size_t> val_entries;
  std::vector<data::DatePair> val_pairs;
  std::map<std::string, std::string> meta;
  meta["split_seed"] = std::to_string(split_seed);
  meta["data"] = g2p ? "cmudict" : "dates";
  const size_t val_size = a.u64("val-size", 1, 1 << 24);
  if (g2p) {
    gd = load_g2p(a.get("data"), split_seed, stress);
    sv = data::grapheme_vocab();
    tv = data::phoneme_vocab(stress);
    meta["stress"] = stress ? "1" : "0";
    for (const auto& p : data::make_g2p_pairs(gd.dict, gd.split.train, sv, tv)) {
      if (p.src.size() > cfg.max_src_len) continue;
      src.push_back(p.src);
      tgt.push_back(p.tgt);
    }
    val_entries = std::vector<size_t>(gd.split.valid.begin(),
                                      gd.split.valid.begin() + long(std::min(val_size, gd.split.valid.size())));
    const data::CmuStats st = data::cmudict_stats(gd.dict, gd.split);
    meta["data_stats"] = data::cmudict_stats_json(st, -1);
  } else {
    const data::DateSplit ds = data::split_dates(data::all_dates(), split_seed);
    sv = data::date_input_vocab();
    tv = data::date_output_vocab();
    for (const auto& p : data::make_date_pairs(ds.train)) {
      src.push_back(data::encode_date_chars(sv, p.input));
      tgt.push_back(data::encode_date_chars(tv, p.output));
    }
    val_pairs = sample_of(data::make_date_pairs(ds.valid), val_size, split_seed + 7);
    meta["data_stats"] = data::date_stats_json(data::date_stats(data::all_dates(), ds), -1);
  }
  const size_t max_train = a.u64("max-train");
  if (max_train && max_train < src.size()) {
    std::vector<size_t> idx(src.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    Rng r(seed + 99);
    r.shuffle(idx);
    idx.resize(max_train);
    std::sort(idx.begin(), idx.end());
    std::vector<std::vector<int>> s2, t2;
    for (size_t i : idx) {
      s2.push_back(src[i]);
      t2.push_back(tgt[i]);
    }
    src.swap(s2);
    tgt.swap(t2);
  }

  Seq2Seq m(cfg, sv, tv, seed);
  ParamList ps;
  m.collect(ps);
  if (!a.get("init-from").empty()) {
    const io::SafeTensors init = io::read_file(a.get("init-from"));
    const Seq2SeqConfig ic = Seq2SeqConfig::from_json(io::model_info(init).config);
    Seq2SeqConfig want = cfg;
    want.src_vocab = ic.src_vocab;
    want.tgt_vocab = ic.tgt_vocab;
    if (ic.to_json() != want.to_json())
      throw Error("--init-from " + a.get("init-from") + ": its config differs from this run's:\n  file: " +
                  ic.to_json() + "\n  run:  " + want.to_json());
    io::load_params(init, ps);
    meta["init_from"] = a.get("init-from");
    meta["init_from_run"] = init.meta("run");
  }
  nn::LrSchedule sched;
  sched.base_lr = static_cast<float>(a.num("lr", 0, 10));
  sched.warmup = a.u64("warmup");
  try {
    sched.decay = nn::decay_from_string(a.get("schedule"));
  } catch (const Error& e) {
    throw UsageError(std::string("--schedule: ") + e.what());
  }
  sched.min_lr = sched.base_lr * 0.02f;
  nn::Adam opt(ps, sched.base_lr);
  std::vector<size_t> lens;
  for (auto& s : src) lens.push_back(s.size());
  const size_t batch = a.u64("batch-size", 1, 1 << 16);
  data::Batcher batcher(lens, batch, seed, true, true);
  nn::TrainOptions to;
  to.epochs = a.u64("epochs", 1, 100000);
  to.clip_norm = static_cast<float>(a.num("clip", 0, 1e6));
  to.eval_every = a.u64("eval-every");
  to.seed = seed;
  const std::string ckpt = a.get("checkpoint");
  to.checkpoint_every = ckpt.empty() ? 0 : a.u64("checkpoint-every", 1, SIZE_MAX);
  sched.total = to.epochs * batcher.num_batches();
  const float smoothing = static_cast<float>(a.num("label-smoothing", 0, 0.99));
  json run_json = {{"task", task},
                                   {"config", cfg.to_json()},
                                   {"seed", seed},
                                   {"split_seed", split_seed},
                                   {"batch", batch},
                                   {"epochs", to.epochs},
                                   {"max_train", max_train},
                                   {"lr", a.get("lr")},
                                   {"schedule", a.get("schedule")},
                                   {"warmup", sched.warmup},
                                   {"clip", a.get("clip")},
                                   {"label_smoothing", a.get("label-smoothing")},
                                   {"init_from", a.get("init-from")}};
  if (stress) run_json["stress"] = true;  // only when set: older runs keep their ids
  const std::string run_id = run_json.dump();
  to.checkpoint_meta["run"] = run_id;
  nn::Trainer trainer(ps, opt, sched, batcher, to);
  double prior_seconds = 0;
  if (!a.get("resume").empty()) {
    const io::SafeTensors ck = io::read_file(a.get("resume"));
    if (ck.meta("run") != run_id)
      throw Error("checkpoint '" + a.get("resume") + "' was made by a different run:\n  saved: " +
                  ck.meta("run") + "\n  now:   " + run_id +
                  "\nrerun with the flags of the first run to resume it");
    trainer.restore(ck);
    prior_seconds = std::atof(ck.meta("train_seconds", "0").c_str());
    if (!quiet && !as_json)
      std::cerr << "resumed from " << a.get("resume") << " at step " << trainer.step() << " ("
                << prior_seconds << " s trained before)\n";
  }
  if (!quiet && !as_json)
    std::cerr << task << ": " << src.size() << " training pairs, " << batcher.num_batches()
              << " batches/epoch, " << trainer.total_steps() << " steps, " << ps.count()
              << " parameters, config " << cfg.to_json() << "\n";

  const bool tty = isatty(fileno(stderr)) != 0;
  const size_t stop_at = a.u64("max-steps") ? a.u64("max-steps") : SIZE_MAX;
  nn::ProgressBar bar(&std::cerr, tty && !quiet && !as_json, std::min(trainer.total_steps(), stop_at));
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&]() {
    return prior_seconds +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto save_model = [&]() {
    std::map<std::string, std::string> mm = meta;
    mm["trained_steps"] = std::to_string(trainer.step());
    mm["train_seconds"] = std::to_string(elapsed());
    mm["run"] = run_id;
    write_atomic(out, m.save(dtype, mm));
  };
  nn::TrainHooks hooks;
  hooks.step = [&](const std::vector<size_t>& idx, Rng&) {
    return static_cast<double>(m.train_step(models::make_seq2seq_batch(src, tgt, idx), smoothing));
  };
  hooks.evaluate = [&]() {
    m.reset_decode_plan();  // the weights changed since the last validation
    if (g2p) return eval_g2p(m, gd.dict, val_entries, 0, 1).score.wer();
    return 1.0 - eval_dates(m, val_pairs, 0, 1).em.accuracy();
  };
  hooks.on_checkpoint = [&](const std::vector<uint8_t>&, size_t) {
    write_atomic(ckpt, trainer.checkpoint({{"train_seconds", std::to_string(elapsed())}}));
  };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    save_model();
    const char* what = g2p ? "val_wer" : "val_exact_err";
    if (as_json) {
      std::cout << json({{"event", "eval"}, {"step", ev.step}, {"epoch", ev.epoch + 1},
                         {"loss", ev.loss}, {what, ev.eval}, {"lr", ev.lr},
                         {"samples_per_s", ev.samples_per_s}, {"seconds", elapsed()}})
                       .dump()
                << std::endl;
    } else if (!quiet) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "epoch %zu step %zu  loss %.4f  %s %.4f  lr %.2e  %.0f samples/s  %.0fs",
                    ev.epoch + 1, ev.step, ev.loss, what, ev.eval, ev.lr, ev.samples_per_s,
                    elapsed());
      if (bar.enabled()) std::cerr << "\r\033[K";
      std::cout << buf << std::endl;
    }
  };
  trainer.run(hooks, &bar, stop_at);
  if (!ckpt.empty())
    write_atomic(ckpt, trainer.checkpoint({{"train_seconds", std::to_string(elapsed())}}));
  save_model();
  if (as_json)
    std::cout << json({{"event", "done"}, {"model", out}, {"steps", trainer.step()},
                       {"seconds", elapsed()}, {"params", ps.count()}})
                     .dump()
              << std::endl;
  else if (!quiet)
    std::printf("saved %s (%zu parameters, %s) after %zu steps, %.0f s of training\n", out.c_str(),
                ps.count(), io::dtype_name(dtype), trainer.step(), elapsed());
  return 0;
}

// ---------------------------------------------------------------- eval / predict
bool is_seq2seq_model(const std::vector<std::string>& argv) {
  std::string path;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--model" && i + 1 < argv.size()) path = argv[i + 1];
    else if (argv[i].rfind("--model=", 0) == 0) path = argv[i].substr(8);
  }
  if (path.empty()) return false;
  try {
    return models::is_translator_kind(io::read_file(path).meta("kind"));
  } catch (const Error&) {
    return false;
  }
}

int cmd_eval_seq2seq(const std::vector<std::string>& argv) {
  Args a("eval", {{"model", "PATH", "", "seq2seq model file"},
                  {"data", "PATH", data::kCmudictRelPath, "g2p: CMUdict text"},
                  {"split", "NAME", "test", "test or valid"},
                  {"beam", "N", "4", "beam width of the beam-search evaluation (g2p: always run; "
                                     "dates: run when given)"},
                  {"limit", "N", "0", "only the first N words (g2p) or dates (dates) of the split"},
                  {"alpha", "F", "0.6", "beam length normalization ((5+len)/6)^alpha; 0 = none"},
                  {"precision", "int8|int16|f32", "int8", "decoder arithmetic: int8 or int16 "
                                                          "weights (int8 is the default everywhere) "
                                                          "or float32"},
                  {"json", "", "", "print one JSON object"}});
  a.parse(argv);
  if (a.flag("help")) {
    std::cout << a.help("attnlab eval --model PATH [flags]",
                        "G2P: word and phoneme error rate (any alternate pronunciation counts\n"
                        "as correct) on the split, greedy and beam; a model trained with\n"
                        "--stress is scored with stress and again with stress stripped.\n"
                        "Dates: exact-match accuracy per input format (greedy; beam with --beam).");
    return 0;
  }
  const std::string path = a.get("model");
  const io::SafeTensors st = io::read_file(path);
  auto m = models::load_translator(st);
  const uint64_t split_seed = std::stoull(st.meta("split_seed", "1234"));
  const std::string which = a.get("split");
  if (which != "test" && which != "valid") throw UsageError("--split must be test or valid");
  const size_t limit = a.u64("limit"), beam = a.u64("beam", 1, 64);
  const float alpha = static_cast<float>(a.num("alpha", 0, 10));
  const models::DecodePrecision prec = parse_precision(a.get("precision"));
  // the Transformer decodes in float32 whatever --precision says
  const char* pname = std::string(m->kind()) == "seq2seq" ? precision_name(prec) : "f32";
  json j = {{"model", path}, {"split", which}, {"split_seed", split_seed},
            {"precision", pname}, {"kind", m->kind()}, {"config", json::parse(m->config_json())}};
  if (st.meta("data") == "cmudict") {
    const bool stress = st.meta("stress", "0") == "1";
    const G2PData gd = load_g2p(a.get("data"), split_seed, stress);
    const auto& entries = which == "test" ? gd.split.test : gd.split.valid;
    const G2PEval g = eval_g2p(*m, gd.dict, entries, limit, 1, alpha, prec);
    const G2PEval b = eval_g2p(*m, gd.dict, entries, limit, beam, alpha, prec);
    j["words"] = g.words;
    j["stress"] = stress;
    j["greedy"] = {{"wer", g.score.wer()}, {"per", g.score.per()}, {"seconds", g.seconds}};
    j["beam"] = {{"width", beam}, {"alpha", alpha}, {"wer", b.score.wer()}, {"per", b.score.per()}, {"seconds", b.seconds}};
    if (stress) {
      j["greedy"]["stripped"] = {{"wer", g.stripped.wer()}, {"per", g.stripped.per()}};
      j["beam"]["stripped"] = {{"wer", b.stripped.wer()}, {"per", b.stripped.per()}};
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
      line(name, b);
    }
    return 0;
  }
  if (st.meta("data") == "dates") {
    const data::DateSplit ds = data::split_dates(data::all_dates(), split_seed);
    auto dates = which == "test" ? ds.test : ds.valid;
    if (limit && limit < dates.size()) dates.resize(limit);
    const auto pairs = data::make_date_pairs(dates);
    std::vector<DateEval> evs = {eval_dates(*m, pairs, 0, 1, alpha, prec)};
    if (a.given("beam") && beam > 1) evs.push_back(eval_dates(*m, pairs, 0, beam, alpha, prec));
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
  throw Error(path + ": unknown data '" + st.meta("data") + "' in the model's metadata");
}

int cmd_predict_seq2seq(const std::vector<std::string>& argv) {
  Args a("predict", {{"model", "PATH", "", "seq2seq model file"},
                     {"input", "TEXT", "", "the word or date (or give it as an argument)"},
                     {"beam", "N", "1", "beam width (1 = greedy)"},
                     {"max-len", "N", "0", "longest output (0 = the model's limit)"},
                     {"alpha", "F", "0.6", "beam length normalization exponent (0 = none)"},
                     {"precision", "int8|int16|f32", "int8", "decoder arithmetic (weights)"},
                     {"json", "", "", "print tokens, probabilities and attention as JSON"}});
  a.parse(argv);
  if (a.flag("help")) {
    std::cout << a.help("attnlab predict --model PATH [--input TEXT | TEXT]",
                        "Translates one input and prints the output (with --json: tokens,\n"
                        "per-token probabilities and the attention matrix, rows = outputs).");
    return 0;
  }
  auto m = models::load_translator(io::read_file(a.get("model")));
  std::string text = a.get("input");
  for (const auto& p : a.positional()) text += (text.empty() ? "" : " ") + p;
  models::DecodeOptions o;
  o.beam = a.u64("beam", 1, 64);
  o.max_len = a.u64("max-len", 0, 100000);
  o.length_alpha = static_cast<float>(a.num("alpha", 0, 10));
  o.precision = parse_precision(a.get("precision"));
  const models::Translation t = m->translate(text, o);
  if (a.flag("json"))
    std::cout << json({{"input", t.input_tokens}, {"output", t.tokens}, {"text", t.text},
                       {"probs", t.probs}, {"attention", t.attention}, {"rows", t.rows},
                       {"cols", t.cols}, {"logprob", t.logprob}})
                     .dump()
              << std::endl;
  else
    std::cout << t.text << std::endl;
  return 0;
}

}  // namespace attnlab::cli
