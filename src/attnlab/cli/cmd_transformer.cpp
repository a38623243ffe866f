// attnlab train g2p --arch transformer: the Transformer seq2seq on CMUdict, on the same
// split, vocabularies and scorer as the RNN g2p models, through the shared nn::Trainer
// (warm-up schedule, clipping, checkpoints that resume exactly, progress, JSON events).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/config_flags.hpp"
#include "attnlab/cli/seq2seq_data.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/text_util.hpp"
#include "attnlab/eval/seq_metrics.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/transformer.hpp"
#include "attnlab/nn/optim.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

namespace {
using json = nlohmann::json;

// the non-empty items of a comma list
std::vector<std::string> comma_list(const std::string& s) {
  return data::split_runs(s, [](char c) { return c == ','; }, [](std::string& item, char c) { item += c; });
}

// the model's flags (after --arch and the task's data flags), with the member each fills
const std::vector<ConfigFlag<models::TransformerConfig>>& transformer_model_flags() {
  using C = models::TransformerConfig;
  static const std::vector<ConfigFlag<C>> flags = {
      {{"d-model", "N", "128", "model width E"}, &C::d_model, 1, 4096},
      {{"heads", "N", "4", "attention heads (E must be a multiple)"}, &C::nhead, 1, 256},
      {{"ff", "N", "512", "feed-forward width"}, &C::dim_feedforward, 1, 65536},
      {{"enc-layers", "N", "3", "encoder layers"}, &C::enc_layers, 1, 64},
      {{"dec-layers", "N", "3", "decoder layers"}, &C::dec_layers, 1, 64},
      {{"dropout", "F", "0.1", "dropout (embeddings, attention and feed-forward outputs)"}, &C::dropout, 0, 0.95},
      {{"activation", "relu|gelu", "relu", "feed-forward activation"}, &C::activation},
      {{"post-norm", "", "", "post-norm layers (the 2017 paper); default pre-norm"}, &C::norm_first, false},
      {{"pos", "sinusoidal|learned", "sinusoidal", "positional encoding"}, &C::pos},
      {{"tied", "", "", "output projection tied to the target embedding (default: separate)"}, &C::tie_output, true},
      schedule_flag(),
      label_smoothing_flag("0.1"),
      {{"disagree-subspace", "W", "0", "weight of the subspace similarity penalty (Li et al. 2018)"}},
      {{"disagree-position", "W", "0", "weight of the attended-position similarity penalty (a sum "
                                       "over query rows: of the order of the length)"}},
      {{"disagree-output", "W", "0", "weight of the output similarity penalty"}},
      {{"disagree-on", "LIST", "enc,dec,cross", "attentions the penalties apply to (comma list of "
                                                "enc, dec, cross)"}},
      {{"teacher", "PATH", "", "token-level distillation (Hinton et al. 2015; for G2P Sun et al. 2019): "
                               "the mean next-token distribution of these seq2seq model files (comma list; "
                               "RNN or Transformer, this run's vocabularies and, for G2P, its split), "
                               "teacher-forced on each training pair, mixed into the target"}},
      {{"teacher-weight", "F", "0.5", "with --teacher: the teachers' share of the target (the rest: "
                                      "the reference, label-smoothed)"}},
      eval_every_flag(),
      {init_from_flag()},
  };
  return flags;
}


// the shared flags' defaults for a Transformer
TrainFlagDefaults transformer_defaults() {
  TrainFlagDefaults d;
  d.out = "g2p-transformer.safetensors";
  d.out_help = "model file (rewritten at every validation)";
  d.dtype = "f16";
  d.seed_help = "seed of the initialisation, dropout and the batch order";
  d.trainer_flags = {"30", "64", "0.001", "2000", "1"};  // epochs, batch size, lr, warm-up steps, clip
  d.checkpoint_every = "500";
  return d;
}

// the model flags as a config, checked (a bad value is a usage error)
models::TransformerConfig transformer_config(const Args& a) {
  models::TransformerConfig cfg;
  read_config_flags(a, transformer_model_flags(), cfg);
  try {
    cfg.validate();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  return cfg;
}

// the loss options: label smoothing and the disagreement weights w on the attentions
// --disagree-on lists
models::TransformerLossOptions transformer_loss(const Args& a, attention::DisagreementWeights& w) {
  models::TransformerLossOptions lo;
  lo.label_smoothing = static_cast<float>(a.num("label-smoothing", 0, 0.99));
  w.subspace = static_cast<float>(a.num("disagree-subspace", 0, 1e3));
  w.position = static_cast<float>(a.num("disagree-position", 0, 1e3));
  w.output = static_cast<float>(a.num("disagree-output", 0, 1e3));
  for (const std::string& item : comma_list(a.get("disagree-on"))) {
    if (item == "enc") lo.enc_self = w;
    else if (item == "dec") lo.dec_self = w;
    else if (item == "cross") lo.cross = w;
    else throw UsageError("--disagree-on: expected a comma list of enc, dec, cross, got '" + item + "'");
  }
  return lo;
}

// --teacher: the models whose mean next-token distribution is mixed into the target. Each
// must read and write this run's vocabularies and have been trained on this run's data: a
// G2P teacher on this split and phoneme set, a teacher of your pairs on the same parts of the
// same pairs (its training words or pairs could be this run's validation or test ones
// otherwise). Returns the models; `hashes` receives each file's FNV-1a hash (the run id
// records them: a resumed run must learn from the same teachers).
std::vector<std::unique_ptr<models::Translator>> load_teachers(const Args& a, const std::string& task,
                                                               const Seq2SeqData& data,
                                                               std::vector<std::string>& hashes) {
  std::vector<std::unique_ptr<models::Translator>> out;
  for (const std::string& path : comma_list(a.get("teacher"))) {
    const std::string where = "--teacher " + path;
    io::SafeTensors st;
    try {
      const std::vector<uint8_t> bytes = io::read_bytes(path);
      hashes.push_back(fnv1a64_hex(bytes.data(), bytes.size()));
      st = io::decode(bytes);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    if (!models::is_translator_kind(st.meta("kind")))
      throw UsageError(where + ": a teacher is a seq2seq model (RNN or Transformer); this file is kind '" +
                       st.meta("kind") + "'");
    if (task == "g2p") {
      const std::string split = data.meta.count("split_seed") ? data.meta.at("split_seed") : "1234";
      const std::string stress = data.meta.count("stress") ? data.meta.at("stress") : "0";
      if (st.meta("data") != "cmudict" || st.meta("split_seed", "1234") != split || st.meta("stress", "0") != stress)
        throw UsageError(where + ": not a G2P model of this split and phoneme set (its data '" + st.meta("data") +
                         "', split seed " + st.meta("split_seed", "1234") + ", stress " + st.meta("stress", "0") +
                         "; this run: cmudict, " + split + ", " + stress +
                         "): its training words may be this split's validation or test words");
    } else {
      const std::string mine = data.meta.count("pairs_fnv1a64") ? data.meta.at("pairs_fnv1a64") : "";
      if (st.meta("data") != data.meta.at("data") || st.meta("pairs_fnv1a64") != mine)
        throw UsageError(where + ": trained on other pairs or another split of them (its data '" +
                         st.meta("data") + "'): its training pairs may be this run's validation or test pairs");
    }
    std::unique_ptr<models::Translator> t;
    try {
      t = models::load_translator(st);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    if (t->src_vocab().tokens() != data.sv.tokens() || t->tgt_vocab().tokens() != data.tv.tokens())
      throw UsageError(where + ": its vocabularies differ from this run's (source " +
                       std::to_string(t->src_vocab().size()) + " and target " + std::to_string(t->tgt_vocab().size()) +
                       " tokens against " + std::to_string(data.sv.size()) + " and " + std::to_string(data.tv.size()) +
                       "): a teacher's distribution must be over the same tokens");
    out.push_back(std::move(t));
  }
  if (out.empty()) throw UsageError("--teacher: expected one or more model files (a comma list)");
  return out;
}

}  // namespace

int cmd_train_transformer(const std::vector<std::string>& argv) {
  TrainFlagDefaults d = transformer_defaults();
  const std::string task = argv.at(0);
  if (task != "g2p" && task != "seq2seq")
    throw UsageError("--arch transformer is available for g2p and seq2seq, got '" + task + "'");
  if (task == "seq2seq") d.out = "seq2seq.safetensors";
  std::vector<std::string> rest(argv.begin() + 1, argv.end());
  reject_foreign_data_flags(task, rest);
  Args a("train " + task,
         seq2seq_train_flags({"arch", "transformer", "transformer", "model kind (this command: transformer)"},
                             task, flag_specs(transformer_model_flags()), d));
  a.parse(rest);
  if (a.flag("help")) {
    std::cout << a.help(
        "attnlab train " + task + " --arch transformer [flags]",
        "Trains a Transformer seq2seq (Vaswani et al. 2017) and writes one model file:\n"
        "  g2p:     CMUdict spelling -> phonemes, on the split, vocabularies and scorer of\n"
        "           the RNN g2p models (validation: greedy WER);\n"
        "  seq2seq: your own 'source<TAB>target' pairs, tokens and vocabularies as for the\n"
        "           RNN (validation: greedy exact-match error; at the end exact match, token\n"
        "           error rate and BLEU-4 on the test pairs).\n"
        "Optional disagreement penalties (Li et al. 2018) make heads differ: subspace\n"
        "(values), position (attention matrices) and output (heads' outputs), each a weight.");
    return 0;
  }
  a.no_positional();
  if (a.get("arch") != "transformer") throw UsageError("--arch must be transformer here");
  check_data_files(a, task);
  TrainScaffold run(a, "train " + task + " --arch transformer");
  const bool stress = task == "g2p" && a.flag("stress");
  const uint64_t seed = run.seed(), split_seed = a.u64("split-seed");

  models::TransformerConfig cfg = transformer_config(a);  // checked before the data is read
  attention::DisagreementWeights w;
  const models::TransformerLossOptions lo = transformer_loss(a, w);
  const io::DType dtype = run.dtype();
  const std::string out = run.out();

  Seq2SeqData data = load_seq2seq_data(a, task, seed);
  data.apply(cfg);
  cfg.validate();
  const auto& src = data.src;
  const auto& tgt = data.tgt;
  const size_t max_train = a.u64("max-train");
  for (const auto& n : data.notes) run.note(n);
  std::vector<std::string> teacher_hashes;
  std::vector<std::unique_ptr<models::Translator>> teachers;
  float teacher_weight = 0.f;
  if (!a.get("teacher").empty()) {
    teacher_weight = static_cast<float>(a.num("teacher-weight", 0, 1));
    teachers = load_teachers(a, task, data, teacher_hashes);
    data.meta["teacher"] = a.get("teacher");
    data.meta["teacher_weight"] = a.get("teacher-weight");
    run.note("token-level distillation: " + std::to_string(teachers.size()) + " teacher(s) (" + a.get("teacher") +
             "), weight " + a.get("teacher-weight"));
  } else if (a.given("teacher-weight")) {
    throw UsageError("--teacher-weight goes with --teacher PATH");
  }

  models::TransformerSeq2Seq m(cfg, data.sv, data.tv, seed);
  ParamList ps;
  m.collect(ps);
  if (!a.get("init-from").empty()) init_from(a.get("init-from"), "transformer-seq2seq", cfg, ps, data.meta);
  nn::LrSchedule sched = run.schedule(a);
  sched.min_lr = sched.base_lr * 0.02f;
  nn::Adam opt(ps, sched.base_lr, 0.9f, 0.98f, 1e-9f);
  std::vector<size_t> lens;
  for (auto& s : src) lens.push_back(s.size());
  const size_t batch = run.batch();
  data::Batcher batcher(lens, batch, seed, true, true);
  nn::TrainOptions to = run.train_options(batcher.num_batches());
  to.eval_every = a.u64("eval-every");
  sched.total = to.epochs * batcher.num_batches();
  json run_json = {{"task", task},          {"arch", "transformer"},
                         {"config", cfg.to_json()}, {"seed", seed},
                         {"split_seed", split_seed}, {"stress", stress},
                         {"batch", batch},         {"epochs", to.epochs},
                         {"max_train", max_train}, {"lr", a.get("lr")},
                         {"schedule", a.get("schedule")}, {"warmup", sched.warmup},
                         {"clip", a.get("clip")},  {"label_smoothing", a.get("label-smoothing")},
                         {"disagree", {w.subspace, w.position, w.output}},
                         {"disagree_on", a.get("disagree-on")}};
  if (!a.get("init-from").empty()) run_json["init_from"] = a.get("init-from");  // only when set: older runs keep their ids
  if (!teachers.empty()) run_json["teacher"] = {{"fnv1a64", teacher_hashes}, {"weight", a.get("teacher-weight")}};
  record_data_in_run(run_json, data);
  run.set_run_id(run_json);
  const std::string run_id = run.run_id();
  to.checkpoint_meta["run"] = run_id;
  nn::Trainer trainer(ps, opt, sched, batcher, to);
  run.resume(trainer);
  run.note(task + " transformer: " + std::to_string(src.size()) + " training pairs, " +
           std::to_string(batcher.num_batches()) + " batches/epoch, " +
           std::to_string(trainer.total_steps()) + " steps, " + std::to_string(ps.count()) +
           " parameters, config " + m.config().to_json());

  auto save_model = [&](const json& scores) {
    std::map<std::string, std::string> mm = data.meta;
    if (!scores.is_null()) mm["scores"] = scores.dump();
    mm["trained_steps"] = std::to_string(trainer.step());
    mm["train_seconds"] = std::to_string(run.elapsed());
    mm["run"] = run_id;
    run.write(out, m.save(dtype, mm));
  };
  models::TransformerLossInfo last_info;
  nn::TrainHooks hooks = run.hooks(trainer);  // checkpoints, atomically, with the run id
  std::vector<float> tprobs, tmean;
  hooks.step = [&](const std::vector<size_t>& idx, Rng& rng) {
    const models::Seq2SeqBatch b = models::make_seq2seq_batch(src, tgt, idx);
    if (teachers.empty()) return double(m.train_step(b, lo, rng, &last_info));
    // the teachers' mean next-token distribution (B,T,V), teacher-forced on the batch
    for (size_t i = 0; i < teachers.size(); ++i) {
      teachers[i]->next_token_probs(b, i ? tprobs : tmean);
      if (i)
        for (size_t j = 0; j < tmean.size(); ++j) tmean[j] += tprobs[j];
    }
    if (teachers.size() > 1)
      for (float& p : tmean) p /= float(teachers.size());
    models::TransformerLossOptions o = lo;
    o.teacher = tmean.data();
    o.teacher_weight = teacher_weight;
    return double(m.train_step(b, o, rng, &last_info));
  };
  if (data.validate)  // validation in training arithmetic
    hooks.evaluate = [&]() { return data.validate(m, models::DecodePrecision::F32); };
  hooks.on_event = [&](const nn::TrainEvent& ev) {
    save_model(nullptr);
    const auto& i = last_info;
    report_train_event(run, ev, data,
                       {{"last_batch_ce", i.ce},
                        {"last_batch_penalty", i.penalty},
                        {"sim_enc", {i.enc_self.subspace, i.enc_self.position, i.enc_self.output}},
                        {"sim_dec", {i.dec_self.subspace, i.dec_self.position, i.dec_self.output}},
                        {"sim_cross", {i.cross.subspace, i.cross.position, i.cross.output}}});
  };
  run.run(trainer, hooks);  // progress bar, --max-steps, final checkpoint
  const json scores = final_pair_scores(run, m, data);
  save_model(scores);
  report_done(run, out, ps.count(), trainer.step(), scores, data);
  return 0;
}

}  // namespace attnlab::cli
