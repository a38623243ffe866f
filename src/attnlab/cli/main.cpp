// The attnlab command: train / eval / predict / describe / models / bench /
// experiment / help. Exit codes: 0 success, 1 runtime failure (bad file,
// diverged run, ...), 2 usage error (unknown command or flag, bad flag value).
#include <iostream>
#include <string>
#include <vector>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/models/registry.hpp"

using namespace attnlab;
using attnlab::cli::UsageError;

namespace attnlab::cli {

const std::vector<TrainCommand>& train_commands() {
  static const std::vector<TrainCommand> cmds = {
      {"toy-reverse", "toy-reverse",
       "GRU encoder-decoder, dot attention, reverses sequences (engine check)",
       cmd_train_toy},
      {"g2p", "seq2seq", "seq2seq with attention: CMUdict spelling -> phonemes", cmd_train_g2p},
      {"dates", "seq2seq", "seq2seq with attention: 20 date formats -> YYYY-MM-DD", cmd_train_dates},
      {"seq2seq", "seq2seq", "seq2seq with attention (RNN or Transformer) on your own TSV pairs",
       cmd_train_seq2seq_pairs},
      {"han", "han", "hierarchical attention network: your labelled documents (JSONL, CSV, folders) or SpamAssassin", cmd_train_han},
      {"mmoe", "mmoe", "multi-task mixture of experts on the MMoE paper's synthetic data",
       cmd_train_mmoe},
      {"din", "din", "Deep Interest Network on synthetic behaviour data (click-through)",
       cmd_train_din},
      {"autoint", "autoint", "AutoInt on synthetic CTR data (click-through)", cmd_train_autoint},
      {"lm", "char-lm", "Transformer-XL character LM (or its baseline) on the State of the Union",
       cmd_train_lm},
  };
  return cmds;
}

namespace {

std::string train_names() {
  std::string s;
  for (const auto& c : train_commands()) s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

std::string model_list() {
  std::string s;
  for (const auto& c : train_commands()) {
    std::string left = "  " + std::string(c.name);
    left += std::string(left.size() < 16 ? 16 - left.size() : 1, ' ');
    s += left + c.summary + (c.name == std::string(c.kind) ? "" : std::string(" (kind ") + c.kind + ")") + "\n";
  }
  return s;
}

std::string main_help() {
  return "usage: attnlab <command> [flags]\n"
         "\n"
         "commands:\n"
         "  train <model>   train a model and save it as one .safetensors file\n"
         "  eval            evaluate a saved model file (any kind; see attnlab eval --help)\n"
         "  predict         run a saved model on an input (any kind; see attnlab predict --help)\n"
         "  describe        show a model file's kind, config, parameters and metadata\n"
         "  average         average the parameters of model files of one architecture\n"
         "  generate        continue a prompt with a character language model (attnlab generate --help)\n"
         "  models          list the model kinds (--json for the machine-readable list)\n"
         "  example-pairs   write generated TSV pairs (numbers in words <-> digits) to try 'train seq2seq'\n"
         "  example-docs    write generated labelled documents (JSONL, 3 topics) to try 'train han --train'\n"
         "  bench           measure training throughput on this machine\n"
         "  experiment mmoe the MMoE paper's synthetic experiment, softmax vs attention gates\n"
         "  help [command]  show help (also: attnlab <command> --help)\n"
         "\n"
         "models (attnlab train <model> --help for each):\n" +
         model_list() +
         "\n"
         "model kinds that eval / predict / describe read (attnlab models):\n  " +
         models::model_kind_names() + "\n"
         "\n"
         "exit codes: 0 ok, 1 runtime failure, 2 usage error\n";
}

}  // namespace

int cmd_train(const Argv& argv) {
  if (argv.empty()) throw UsageError("train needs a model name (" + train_names() + ")");
  if (argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    TrainFlagDefaults d;
    d.out = "<model>.safetensors";
    const Args shared("train", with_common_train_flags({}, d));
    std::cout << shared.help(
                     "attnlab train <model> [flags]",
                     "Trains <model> and writes one model file (weights, config and vocabulary).\n"
                     "The flags below are shared: every training command takes --seed, --out,\n"
                     "--dtype, --json and --quiet; those trained step by step also the rest (a run\n"
                     "resumed with --resume ends with the same model as an uninterrupted one).\n"
                     "Each model adds its own (architecture, data, --schedule, ...): see\n"
                     "'attnlab train <model> --help'; defaults differ by model.\n\n"
                     "models:\n" + model_list())
              << "\n";
    return 0;
  }
  for (const auto& c : train_commands())
    if (argv[0] == c.name) return c.run(Argv(argv.begin() + 1, argv.end()));
  if (argv[0].rfind("--", 0) == 0)
    throw UsageError("train needs a model name before its flags (" + train_names() +
                     "); see 'attnlab train --help'");
  throw UsageError("unknown model '" + argv[0] + "' (models: " + train_names() + ")");
}

}  // namespace attnlab::cli

int main(int argc, char** argv) {
  using namespace attnlab::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<std::pair<std::string, int (*)(const Argv&)>> commands = {
      {"train", cmd_train},       {"eval", cmd_eval},     {"predict", cmd_predict},
      {"describe", cmd_describe}, {"models", cmd_models}, {"bench", cmd_bench},
      {"experiment", cmd_experiment}, {"generate", cmd_generate}, {"average", cmd_average},
      {"example-pairs", cmd_example_pairs}, {"example-docs", cmd_example_docs}};
  try {
    if (args.empty()) {
      std::cerr << main_help();
      return 2;
    }
    const std::string cmd = args[0];
    Argv rest(args.begin() + 1, args.end());
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      if (rest.empty() || rest[0] == "help") {
        std::cout << main_help();
        return 0;
      }
      for (const auto& c : commands)
        if (rest[0] == c.first) return c.second({"--help"});
      throw UsageError("no help for unknown command '" + rest[0] + "'");
    }
    for (const auto& c : commands)
      if (cmd == c.first) return c.second(rest);
    throw UsageError("unknown command '" + cmd +
                     "' (commands: train, eval, predict, describe, average, models, generate, example-pairs, "
                     "example-docs, bench, experiment, help)");
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
