// attnlab train g2p --arch transformer: the Transformer seq2seq on CMUdict, on the same
// split, vocabularies and scorer as the RNN g2p models, through the shared nn::Trainer
// (warm-up schedule, clipping, checkpoints that resume exactly, progress, JSON events).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/eval/seq_metrics.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {
using json = nlohmann::json;

std::vector<FlagSpec> transformer_train_flags() {
  return {
      {"arch", "transformer", "transformer", "model kind (this command: transformer)"},
      {"data", "PATH", data::kCmudictRelPath, "CMUdict text (cmudict-0.7b format)"},
      {"split-seed", "N", "1234", "seed of the train/valid/test split (90/5/5 by word)"},
      {"stress", "", "", "keep CMUdict's stress digits"},
      {"d-model", "N", "128", "model width E"},
      {"heads", "N", "4", "attention heads (E must be a multiple)"},
      {"ff", "N", "512", "feed-forward width"},
      {"enc-layers", "N", "3", "encoder layers"},
      {"dec-layers", "N", "3", "decoder layers"},
      {"dropout", "F", "0.1", "dropout (embeddings, attention and feed-forward outputs)"},
      {"activation", "relu|gelu", "relu", "feed-forward activation"},
      {"post-norm", "", "", "post-norm layers (the 2017 paper); default pre-norm"},
      {"pos", "sinusoidal|learned", "sinusoidal", "positional encoding"},
      {"tied", "", "", "output projection tied to the target embedding (default: separate)"},
      {"epochs", "N", "30", "passes over the training pairs"},
      {"batch-size", "N", "64", "pairs per step"},
      {"max-train", "N", "0", "use only a seeded sample of N training pairs (0 = all)"},
      {"lr", "F", "0.001", "peak learning rate (Adam, betas 0.9/0.98)"},
      {"schedule", "NAME", "cosine", "decay after warm-up: constant, cosine, linear or step"},
      {"warmup", "N", "2000", "linear warm-up steps"},
      {"clip", "F", "1", "clip gradients to this global L2 norm (0 = off)"},
      {"label-smoothing", "F", "0.1", "label smoothing of the token cross-entropy"},
      {"disagree-subspace", "W", "0", "weight of the subspace similarity penalty (Li et al. 2018)"},
      {"disagree-position", "W", "0", "weight of the attended-position similarity penalty (a sum "
                                      "over query rows: of the order of the length)"},
      {"disagree-output", "W", "0", "weight of the output similarity penalty"},
      {"disagree-on", "LIST", "enc,dec,cross", "attentions the penalties apply to (comma list of "
                                               "enc, dec, cross)"},
      {"seed", "N", "1", "seed of the initialisation, dropout and the batch order"},
      {"max-steps", "N", "0", "stop after this many steps (the schedule still spans all epochs)"},
      {"eval-every", "N", "0", "validate every N steps (0 = every epoch)"},
      {"val-size", "N", "1000", "validation words used during training (greedy WER)"},
      {"out", "PATH", "g2p-transformer.safetensors", "model file (rewritten at every validation)"},
      {"dtype", "f32|f16", "f16", "storage type of the model file"},
      {"checkpoint", "PATH", "", "resumable checkpoint file"},
      {"checkpoint-every", "N", "500", "steps between checkpoints"},
      {"resume", "PATH", "", "continue from a checkpoint (same flags as the first run)"},
      {"json", "", "", "print JSON lines on stdout"},
      {"quiet", "", "", "no progress bar and no per-validation lines"},
  };
}

void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  io::write_bytes(tmp, bytes);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error("could not rename " + tmp + " to " + path);
}

}  // namespace

int cmd_train_transformer(const std::vector<std::string>& argv) {
  Args a("train", transformer_train_flags());
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  a.parse(rest);
  const std::string task = argv.at(0);
  if (a.flag("help")) {
    std::cout << a.help(
        "attnlab train g2p --arch transformer [flags]",
        "Trains a Transformer seq2seq (Vaswani et al. 2017) on CMUdict spelling -> phonemes,\n"
        "on the split, vocabularies and scorer of the RNN g2p models, and writes one model\n"
        "file. Optional disagreement penalties (Li et al. 2018) make heads differ: subspace\n"
        "(values), position (attention matrices) and output (heads' outputs), each a weight.\n"
        "Validation during training: greedy WER.");
    return 0;
  }
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional()[0] + "'");
  if (task != "g2p") throw UsageError("--arch transformer is available for g2p only, got '" + task + "'");
  if (a.get("arch") != "transformer") throw UsageError("--arch must be transformer here");
  const bool stress = a.flag("stress"), as_json = a.flag("json"), quiet = a.flag("quiet");
  const uint64_t seed = a.u64("seed"), split_seed = a.u64("split-seed");

  models::TransformerConfig cfg;
  cfg.task = "g2p";
  cfg.d_model = a.u64("d-model", 1, 4096);
  cfg.nhead = a.u64("heads", 1, 256);
  cfg.dim_feedforward = a.u64("ff", 1, 65536);
  cfg.enc_layers = a.u64("enc-layers", 1, 64);
  cfg.dec_layers = a.u64("dec-layers", 1, 64);
  cfg.dropout = static_cast<float>(a.num("dropout", 0, 0.95));
  cfg.activation = a.get("activation");
  cfg.norm_first = !a.flag("post-norm");
  cfg.pos = a.get("pos");
  cfg.tie_output = a.flag("tied");
  cfg.max_src_len = 40;
  cfg.max_tgt_len = 40;
  cfg.output_sep = " ";
  try {
    cfg.validate();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  models::TransformerLossOptions lo;
  lo.label_smoothing = static_cast<float>(a.num("label-smoothing", 0, 0.99));
  attention::DisagreementWeights w;
  w.subspace = static_cast<float>(a.num("disagree-subspace", 0, 1e3));
  w.position = static_cast<float>(a.num("disagree-position", 0, 1e3));
  w.output = static_cast<float>(a.num("disagree-output", 0, 1e3));
  {
    std::string on = a.get("disagree-on") + ",", item;
    for (char ch : on) {
      if (ch != ',') {
        item += ch;
        continue;
      }
      if (item == "enc") lo.enc_self = w;
      else if (item == "dec") lo.dec_self = w;
      else if (item == "cross") lo.cross = w;
      else if (!item.empty())
        throw UsageError("--disagree-on: expected a comma list of enc, dec, cross, got '" + item + "'");
      item.clear();
    }
  }
  io::DType dtype;
  try {
    dtype = io::dtype_from_string(a.get("dtype"));
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  const std::string out = a.get("out");

  // data: the RNN g2p models' split and vocabularies
  data::CmuOptions copt;
  copt.keep_stress = stress;
  const data::CmuDict dict = data::load_cmudict(a.get("data"), copt);
  const data::CmuSplit split = data::split_cmudict(dict, split_seed);
  const data::Vocab sv = data::grapheme_vocab(), tv = data::phoneme_vocab(stress);
  std::vector<std::vector<int>> src, tgt;
  for (const auto& p : data::make_g2p_pairs(dict, split.train, sv, tv)) {
    if (p.src.size() > cfg.max_src_len || p.tgt.size() > cfg.max_tgt_len) continue;
    src.push_back(p.src);
    tgt.push_back(p.tgt);
  }
  const size_t val_size = a.u64("val-size", 1, 1 << 24);
  const std::vector<size_t> val(split.valid.begin(),
                                split.valid.begin() + long(std::min(val_size, split.valid.size())));
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
  std::map<std::string, std::string> meta{{"split_seed", std::to_string(split_seed)},
                                          {"data", "cmudict"},
                                          {"stress", stress ? "1" : "0"}};

  models::TransformerSeq2Seq m(cfg, sv, tv, seed);
  ParamList ps;
  m.collect(ps);
  nn::LrSchedule sched;
  sched.base_lr = static_cast<float>(a.num("lr", 0, 10));
  sched.warmup = a.u64("warmup");
  try {
    sched.decay = nn::decay_from_string(a.get("schedule"));
  } catch (const Error& e) {
    throw UsageError(std::string("--schedule: ") + e.what());
  }
  sched.min_lr = sched.base_lr * 0.02f;
  nn::Adam opt(ps, sched.base_lr, 0.9f, 0.98f, 1e-9f);
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
  const json run_json = {{"task", task},          {"arch", "transformer"},
                         {"config", cfg.to_json()}, {"seed", seed},
                         {"split_seed", split_seed}, {"stress", stress},
                         {"batch", batch},         {"epochs", to.epochs},
                         {"max_train", max_train}, {"lr", a.get("lr")},
                         {"schedule", a.get("schedule")}, {"warmup", sched.warmup},
                         {"clip", a.get("clip")},  {"label_smoothing", a.get("label-smoothing")},
                         {"disagree", {w.subspace, w.position, w.output}},
                         {"disagree_on", a.get("disagree-on")}};
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
      std::cerr << "resumed from " << a.get("resume") << " at step " << trainer.step() << "\n";
  }
  if (!quiet && !as_json)
    std::cerr << "g2p transformer: " << src.size() << " training pairs, " << batcher.num_batches()
              << " batches/epoch, " << trainer.total_steps() << " steps, " << ps.count()
              << " parameters, config " << m.config().to_json() << "\n";

  const bool tty = isatty(fileno(stderr)) != 0;
  const size_t stop_at = a.u64("max-steps") ? a.u64("max-steps") : SIZE_MAX;
  nn::ProgressBar bar(&std::cerr, tty && !quiet && !as_json, std::min(trainer.total_steps(), stop_at));
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&]() {
    return prior_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto save_model = [&]() {
    std::map<std::string, std::string> mm = meta;
    mm["trained_steps"] = std::to_string(trainer.step());
    mm["train_seconds"] = std::to_string(elapsed());
    mm["run"] = run_id;
    write_file_atomic(out, m.save(dtype, mm));
  };
  models::TransformerLossInfo last_info;
  nn::TrainHooks hooks;
  hooks.step = [&](const std::vector<size_t>& idx, Rng& rng) {
    return double(m.train_step(models::make_seq2seq_batch(src, tgt, idx), lo, rng, &last_info));
  };
  hooks.evaluate = [&]() {
    eval::G2PScore sc;
    models::DecodeOptions o;
    o.head_maps = false;
    for (size_t e : val) {
      const data::CmuEntry& en = dict.entries[e];
      data::Pron hyp;
      if (en.word.size() <= cfg.max_src_len) hyp = m.translate(en.word, o).tokens;
      sc.add(hyp, en.prons);
    }
    return sc.wer();
  };
  hooks.on_checkpoint = [&](const std::vector<uint8_t>&, size_t) {
    write_file_atomic(ckpt, trainer.checkpoint({{"train_seconds", std::to_string(elapsed())}}));
  };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    save_model();
    const auto& i = last_info;
    if (as_json) {
      std::cout << json({{"event", "eval"}, {"step", ev.step}, {"epoch", ev.epoch + 1},
                         {"loss", ev.loss}, {"val_wer", ev.eval}, {"lr", ev.lr},
                         {"samples_per_s", ev.samples_per_s}, {"seconds", elapsed()},
                         {"last_batch_ce", i.ce}, {"last_batch_penalty", i.penalty},
                         {"sim_enc", {i.enc_self.subspace, i.enc_self.position, i.enc_self.output}},
                         {"sim_dec", {i.dec_self.subspace, i.dec_self.position, i.dec_self.output}},
                         {"sim_cross", {i.cross.subspace, i.cross.position, i.cross.output}}})
                       .dump()
                << std::endl;
    } else if (!quiet) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "epoch %zu step %zu  loss %.4f  val_wer %.4f  lr %.2e  %.0f samples/s  %.0fs",
                    ev.epoch + 1, ev.step, ev.loss, ev.eval, ev.lr, ev.samples_per_s, elapsed());
      if (bar.enabled()) std::cerr << "\r\033[K";
      std::cout << buf << std::endl;
    }
  };
  trainer.run(hooks, &bar, stop_at);
  if (!ckpt.empty())
    write_file_atomic(ckpt, trainer.checkpoint({{"train_seconds", std::to_string(elapsed())}}));
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

}  // namespace attnlab::cli
