// The attnlab command's tables and subcommands. Two lists drive dispatch, help
// and tests: train_commands() (`attnlab train <name>`) and kind_commands()
// (eval / predict per model kind, one entry per row of models::model_kinds()).
#pragma once
#include <string>
#include <vector>

namespace attnlab::models {
struct ModelFile;
}

namespace attnlab::cli {

using Argv = std::vector<std::string>;

struct TrainCommand {
  const char* name;     // attnlab train <name>
  const char* kind;     // the model kind it writes
  const char* summary;  // one line for `attnlab help` and `attnlab train --help`
  int (*run)(const Argv& args);  // the arguments after the name
};
const std::vector<TrainCommand>& train_commands();

using ModelCommand = int (*)(const models::ModelFile& file, const Argv& args);
struct KindCommands {
  const char* kind;
  ModelCommand eval;     // nullptr: this kind has no evaluation in the CLI (says so)
  ModelCommand predict;  // nullptr: the generic predict (--input JSON -> JSON)
  const char* eval_about;     // one line for `attnlab eval --help`
  const char* predict_about;  // one line for `attnlab predict --help`
};
const std::vector<KindCommands>& kind_commands();
const KindCommands* find_kind_commands(const std::string& kind);

// attnlab train | eval | predict | describe | models | bench | experiment
int cmd_train(const Argv& args);
// eval / predict with --attribution (cmd_explain.cpp): HAN and seq2seq (RNN or Transformer) model files
bool wants_attribution(const Argv& args);
int cmd_eval_attribution(const models::ModelFile& file, const Argv& args);
int cmd_predict_attribution(const models::ModelFile& file, const Argv& args);
int cmd_eval(const Argv& args);
int cmd_predict(const Argv& args);
int cmd_describe(const Argv& args);
int cmd_average(const Argv& args);  // attnlab average --out PATH MODEL MODEL...
int cmd_models(const Argv& args);
int cmd_bench(const Argv& args);
int cmd_experiment(const Argv& args);  // attnlab experiment mmoe ...

// Training commands (arguments after the model name).
int cmd_train_toy(const Argv& args);
int cmd_train_g2p(const Argv& args);
int cmd_train_transformer(const Argv& args);  // train g2p --arch transformer (from cmd_train_g2p)
int cmd_train_dates(const Argv& args);
int cmd_train_seq2seq_pairs(const Argv& args);  // attnlab train seq2seq (the user's TSV pairs)
int cmd_train_han(const Argv& args);
int cmd_train_mmoe(const Argv& args);
int cmd_train_din(const Argv& args);
int cmd_train_autoint(const Argv& args);
int cmd_train_lm(const Argv& args);  // Transformer-XL character LM (cmd_lm.cpp)
int cmd_generate(const Argv& args);
int cmd_example_docs(const Argv& args);   // attnlab example-docs: generated labelled documents (JSONL)
int cmd_example_pairs(const Argv& args);  // attnlab example-pairs: generated TSV pairs  // attnlab generate --model LM-FILE ...

// Per-kind eval / predict on a model file read once by the dispatcher.
int cmd_eval_toy(const models::ModelFile& f, const Argv& args);
int cmd_predict_toy(const models::ModelFile& f, const Argv& args);
int cmd_eval_seq2seq(const models::ModelFile& f, const Argv& args);
int cmd_predict_seq2seq(const models::ModelFile& f, const Argv& args);
int cmd_eval_han(const models::ModelFile& f, const Argv& args);
int cmd_predict_han(const models::ModelFile& f, const Argv& args);
int cmd_eval_mmoe(const models::ModelFile& f, const Argv& args);
int cmd_eval_din(const models::ModelFile& f, const Argv& args);
int cmd_eval_autoint(const models::ModelFile& f, const Argv& args);
int cmd_eval_lm(const models::ModelFile& f, const Argv& args);

}  // namespace attnlab::cli
