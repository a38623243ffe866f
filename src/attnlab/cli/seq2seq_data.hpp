// The data of a seq2seq training task, one path for every task and architecture:
//   g2p      CMUdict spelling -> phonemes (fixed vocabularies, split by word)
//   dates    the 20 date formats -> YYYY-MM-DD (generated, split by date)
//   seq2seq  the user's TSV pairs (vocabularies counted from the training pairs)
// `attnlab train g2p|dates|seq2seq` (RNN, cmd_seq2seq.cpp) and `--arch transformer`
// (cmd_transformer.cpp) read their data flags, training ids, vocabularies, validation and
// metadata from here; eval scores a model of any task through the same functions.
#pragma once
#include <functional>
#include <memory>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/data/cmudict.hpp"
#include "attnlab/data/dates.hpp"
#include "attnlab/data/tsv_pairs.hpp"
#include "attnlab/eval/bleu.hpp"
#include "attnlab/eval/mt_metrics.hpp"
#include "attnlab/eval/seq_metrics.hpp"
#include "attnlab/io/safetensors.hpp"
#include "attnlab/models/seq2seq.hpp"
#include "attnlab/nn/train.hpp"

namespace attnlab::cli {

// The data flags of a task (g2p: --data --split-seed --stress --val-size --max-train; dates:
// --split-seed --val-size --max-train; seq2seq: --train --valid --test --split --split-seed
// --src-tokens --tgt-tokens --min-count --skip-bad --max-src-len --max-tgt-len --val-size
// --max-train).
std::vector<FlagSpec> seq2seq_data_flags(const std::string& task);
struct TrainFlagDefaults;
// A seq2seq training command's flags (RNN or Transformer): `arch` (--arch), the task's data
// flags, the architecture's `model` flags, then the shared training flags with defaults d.
std::vector<FlagSpec> seq2seq_train_flags(FlagSpec arch, const std::string& task,
                                          const std::vector<FlagSpec>& model,
                                          const TrainFlagDefaults& d);
// "train dates --data ..." and the like: a clear error for a data flag the task has none of
// (call before parsing).
void reject_foreign_data_flags(const std::string& task, const std::vector<std::string>& argv);

// The data files given on the command line can be opened (an Error naming the flag and the
// file otherwise): checked right after parsing, before the model flags are judged.
void check_data_files(const Args& a, const std::string& task);

// Exact match, token error rate (edit distance / reference tokens) and corpus BLEU of
// translations against one reference each (tokens as the model's target side splits them).
// On the detokenized text too: BLEU with sacreBLEU's zh tokenization (CJK characters split,
// the rest as 13a; any language) and chrF2 (eval/mt_metrics.hpp).
struct PairScore {
  eval::ExactMatch em;
  size_t edits = 0, ref_tokens = 0, too_long = 0;
  eval::BleuStats bleu, bleu_zh;
  eval::ChrfStats chrf;
  double seconds = 0;
  void add(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);
  void add_text(const std::string& hyp, const std::string& ref);
  size_t pairs() const { return em.num_total(); }
  double token_error_rate() const { return ref_tokens ? double(edits) / double(ref_tokens) : 0.0; }
  nlohmann::json to_json() const;  // {"pairs": 0} alone when there was nothing to score
};
// Greedy (beam 1) or beam decoding of every pair; an input over the model's length limit
// scores as an empty output (counted in too_long).
PairScore score_pairs(const models::Translator& m, const std::vector<data::TextPair>& pairs,
                      const models::DecodeOptions& o, size_t limit = 0);
// "exact match 98.20%  token error rate 0.61%  BLEU 97.91  BLEU-zh 97.50  chrF2 98.10  (1,000 pairs)"
// or "n/a (no pairs)"
std::string pair_score_line(const PairScore& s);

struct Seq2SeqData {
  std::string task;
  data::Vocab sv, tv;
  std::vector<std::vector<int>> src, tgt;  // training pairs as ids, within the length limits
  std::map<std::string, std::string> meta;  // recorded in the model file
  // what the model's config takes from the data
  size_t max_src_len = 40, max_tgt_len = 40;
  bool uppercase = true;
  std::string output_sep = " ", src_tokens, tgt_tokens;
  // validation during training: lower is better; none when there are no validation pairs
  std::string val_name;  // "val_wer" | "val_exact_err"
  size_t val_count = 0;
  std::function<double(const models::Translator&, models::DecodePrecision)> validate;
  // the user's pairs: the held-out splits (test scored at the end of training)
  std::vector<data::TextPair> valid, test;
  std::vector<std::string> notes;  // for the run's notes (split sizes, skipped lines)

  template <class Config>
  void apply(Config& c) const {
    c.task = task;
    c.max_src_len = max_src_len;
    c.max_tgt_len = max_tgt_len;
    c.uppercase = uppercase;
    c.output_sep = output_sep;
    c.src_tokens = src_tokens;
    c.tgt_tokens = tgt_tokens;
  }
};

// G2P: word and phoneme error rate (any alternate pronunciation is correct), also with stress
// stripped when the dictionary keeps it. Dates: exact match per input format.
struct G2PEval {
  eval::G2PScore score;
  eval::G2PScore stripped;
  size_t words = 0;
  double seconds = 0;
  // per word, in the split's order: the output and its score (as `score` counts it)
  std::vector<data::Pron> outputs;
  std::vector<eval::G2PWordScore> scored;
};
G2PEval eval_g2p(const models::Translator& m, const data::CmuDict& dict, const std::vector<size_t>& entries,
                 size_t limit, size_t beam, float alpha = 0.6f,
                 models::DecodePrecision precision = models::DecodePrecision::Int8);
// The ensemble of two G2P models by n-best rescoring: per word, the hypotheses of both beam
// searches (width beam; 1 = the two greedy outputs) are scored by each model (teacher-forced
// log-probability, </s> included) and the one with the highest sum is the output. The models
// must share the phoneme vocabulary (an Error otherwise); a word over either model's length
// limit gets an empty output, as eval_g2p gives it.
G2PEval eval_g2p_ensemble(const models::Translator& a, const models::Translator& b,
                          const data::CmuDict& dict, const std::vector<size_t>& entries, size_t limit,
                          size_t beam, float alpha = 0.6f,
                          models::DecodePrecision precision = models::DecodePrecision::Int8);
struct DateEval {
  eval::ExactMatch em;
  double seconds = 0;
};
DateEval eval_dates(const models::Translator& m, const std::vector<data::DatePair>& pairs, size_t limit,
                    size_t beam, float alpha = 0.6f,
                    models::DecodePrecision precision = models::DecodePrecision::Int8);

// Reads the task's data flags (a must hold seq2seq_data_flags(task)); `seed` seeds --max-train.
Seq2SeqData load_seq2seq_data(const Args& a, const std::string& task, uint64_t seed);

// What a run id records of the data beyond the flags: the user's pairs (their hash and
// files) and --distill's targets (the file's hash), each only when there are some, so that a
// run without them keeps its id.
void record_data_in_run(nlohmann::json& run_json, const Seq2SeqData& d);

// A config with a dropout rate (the Transformer's): a training setting, not part of the weights.
template <class C, class = void>
struct HasDropout : std::false_type {};
template <class C>
struct HasDropout<C, std::void_t<decltype(std::declval<C&>().dropout)>> : std::true_type {};

// --init-from: the weights of a model file of the same kind whose config equals this run's
// (vocabulary sizes aside, and the dropout rate: a run may fine-tune with another); recorded
// in `meta`. A new run: fresh optimizer and schedule.
template <class Config>
void init_from(const std::string& path, const std::string& kind, const Config& cfg, const ParamList& ps,
               std::map<std::string, std::string>& meta) {
  const io::SafeTensors init = io::read_file(path);
  const io::ModelInfo info = io::model_info(init);
  if (info.kind != kind)
    throw Error("--init-from " + path + ": a " + info.kind + " model; this run trains a " + kind + " model");
  const Config ic = Config::from_json(info.config);
  Config want = cfg;
  want.src_vocab = ic.src_vocab;
  want.tgt_vocab = ic.tgt_vocab;
  if constexpr (HasDropout<Config>::value) want.dropout = ic.dropout;
  if (ic.to_json() != want.to_json())
    throw Error("--init-from " + path + ": its config differs from this run's:\n  file: " + ic.to_json() +
                "\n  run:  " + want.to_json());
  io::load_params(init, ps);
  meta["init_from"] = path;
  meta["init_from_run"] = init.meta("run");
}

class TrainScaffold;
// The end of a run on the user's pairs: greedy scores on the test pairs (the validation pairs
// without them) as a note; returned as JSON for the done event and the file (null for g2p/dates).
nlohmann::json final_pair_scores(TrainScaffold& run, const models::Translator& m, const Seq2SeqData& d);
// A training event of a seq2seq command (RNN or Transformer): its text line and its fields (step,
// epoch, loss, d.val_name's score or null, lr, samples/s, and the command's `extra` fields).
void report_train_event(TrainScaffold& run, const nn::TrainEvent& ev, const Seq2SeqData& d,
                        const nlohmann::json& extra = nlohmann::json::object());
// The done line and event: the model file `out`, its size, steps, scores and (the user's
// pairs) the data.
void report_done(TrainScaffold& run, const std::string& out, size_t params, size_t steps,
                 const nlohmann::json& scores, const Seq2SeqData& d);

// A TSV model's held-out pairs for eval: --test FILE, or the test (or, with which = "valid", the
// validation) part of the split recorded in the model file (reading its training file again), or
// the test / validation file it records. Empty if none.
std::vector<data::TextPair> tsv_eval_pairs(const std::map<std::string, std::string>& meta,
                                           const std::string& test_path, bool skip_bad,
                                           std::string* source, const std::string& which = "test");

}  // namespace attnlab::cli
