#include "attnlab/models/seq2seq_fit.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "attnlab/core/error.hpp"
#include "attnlab/eval/seq_metrics.hpp"

namespace attnlab::models {

void PairsTrainOptions::check() const {
  ATTNLAB_CHECK(valid_fraction >= 0 && valid_fraction <= 0.5, "validationSplit: expected a number in [0, 0.5], got ",
                valid_fraction);
  ATTNLAB_CHECK(batch >= 1 && batch <= 4096, "batchSize: expected a whole number in [1, 4096], got ", batch);
  ATTNLAB_CHECK(std::isfinite(lr) && lr > 0 && lr <= 1, "lr: expected a number in (0, 1], got ", lr);
  ATTNLAB_CHECK(std::isfinite(clip) && clip >= 0, "clip: expected a number >= 0, got ", clip);
  ATTNLAB_CHECK(label_smoothing >= 0 && label_smoothing < 1, "labelSmoothing: expected a number in [0, 1), got ",
                label_smoothing);
  ATTNLAB_CHECK(tokens.min_count >= 1, "minCount: expected a whole number >= 1, got ", tokens.min_count);
}

PairsTrainer::PairsTrainer(Seq2SeqConfig cfg, const std::vector<data::TextPair>& pairs,
                           const PairsTrainOptions& o)
    : o_(o) {
  o_.check();
  cfg.validate();  // the architecture first: its errors do not depend on the pairs
  ATTNLAB_CHECK(!pairs.empty(), "fit: no pairs (expected [source, target] pairs of non-empty strings)");
  data::SplitFractions f;
  f.train = 1.0 - o_.valid_fraction;
  f.valid = o_.valid_fraction;
  f.test = 0;
  data::PairSplit split = data::split_pairs(pairs, o_.seed, f);
  ATTNLAB_CHECK(!split.train.empty(), "fit: no training pairs left after holding out ", o_.valid_fraction * 100,
                "% for validation (", pairs.size(), " pairs given)");
  data::EncodedPairs enc = data::encode_training_pairs(split.train, o_.tokens);
  ATTNLAB_CHECK(!enc.src.empty(), "fit: every training pair is over the length limits");
  cfg.max_src_len = enc.max_src_len;
  cfg.max_tgt_len = enc.max_tgt_len;
  cfg.uppercase = false;
  cfg.src_tokens = data::token_unit_name(o_.tokens.src);
  cfg.tgt_tokens = data::token_unit_name(o_.tokens.tgt);
  cfg.output_sep = o_.tokens.tgt == data::TokenUnit::Char ? "" : " ";
  cfg.task = "seq2seq";
  cfg.validate();
  const uint64_t params = Seq2Seq::param_count(cfg, enc.sv.size(), enc.tv.size());
  ATTNLAB_CHECK(params <= kMaxFitParams, "fit: this config needs ", params, " parameters, more than ",
                kMaxFitParams, ", the limit of training in memory: use a smaller emb, hidden or combine");
  {
    const ParamBudget budget(params);  // the count above is what the constructor may build
    model_ = std::make_unique<Seq2Seq>(cfg, enc.sv, enc.tv, o_.seed);
  }
  model_->collect(ps_);
  opt_ = std::make_unique<nn::Adam>(ps_, o_.lr);
  src_ = std::move(enc.src);
  tgt_ = std::move(enc.tgt);
  too_long_ = enc.too_long;
  valid_ = std::move(split.valid);
  std::vector<size_t> lens;
  lens.reserve(src_.size());
  for (const auto& s : src_) lens.push_back(s.size());
  batcher_ = std::make_unique<data::Batcher>(lens, o_.batch, o_.seed, true, true);
}

PairsStep PairsTrainer::run(size_t max_steps) {
  PairsStep r;
  const size_t nb = batcher_->num_batches();
  r.steps_per_epoch = nb;
  double loss_sum = 0;
  while (r.steps < max_steps) {
    const size_t bi = step_ % nb;
    if (bi == 0 || batches_.empty()) batches_ = batcher_->epoch(step_ / nb);
    opt_->lr = o_.warmup && step_ < o_.warmup ? o_.lr * float(step_ + 1) / float(o_.warmup) : o_.lr;
    ps_.zero_grad();
    const float loss = model_->train_step(make_seq2seq_batch(src_, tgt_, batches_[bi]), o_.label_smoothing);
    ATTNLAB_CHECK(std::isfinite(loss), "training diverged: loss is ", loss, " at step ", step_,
                  " (try a lower lr)");
    if (o_.clip > 0) nn::clip_grad_norm(ps_, o_.clip);
    opt_->step();
    ++step_;
    ++r.steps;
    loss_sum += loss;
    if (step_ % nb == 0) {
      r.epoch_end = true;
      break;
    }
  }
  model_->reset_decode_plan();  // the weights changed since the last decode
  r.step = step_;
  r.epoch = step_ / nb;
  r.loss = r.steps ? loss_sum / double(r.steps) : 0.0;
  return r;
}

PairsEval PairsTrainer::evaluate(size_t limit) const {
  PairsEval e;
  const size_t n = limit ? std::min(limit, valid_.size()) : valid_.size();
  DecodeOptions d;
  d.head_maps = false;
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> hyp;
    try {
      hyp = model_->translate(valid_[i].src, d).tokens;
    } catch (const Error&) {
      // a held-out source over the length limit: scored as an empty output
    }
    const std::vector<std::string> ref = data::split_tokens(valid_[i].tgt, o_.tokens.tgt);
    ++e.pairs;
    e.exact += hyp == ref;
    e.edits += eval::edit_distance_tokens(hyp, ref);
    e.ref_tokens += ref.size();
  }
  return e;
}

std::vector<uint8_t> PairsTrainer::save(io::DType dtype) const {
  std::map<std::string, std::string> meta;
  meta["data"] = "pairs in memory (Seq2Seq.fit)";
  meta["trained_steps"] = std::to_string(step_);
  meta["fit"] = nlohmann::json{{"batch", o_.batch},
                               {"lr", o_.lr},
                               {"warmup", o_.warmup},
                               {"clip", o_.clip},
                               {"label_smoothing", o_.label_smoothing},
                               {"seed", o_.seed},
                               {"validation_split", o_.valid_fraction},
                               {"min_count", o_.tokens.min_count},
                               {"train_pairs", src_.size()},
                               {"valid_pairs", valid_.size()}}
                    .dump();
  return model_->save({dtype, meta});
}

}  // namespace attnlab::models
