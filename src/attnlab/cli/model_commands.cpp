// attnlab eval / predict / describe / models: one dispatch for every model kind.
// The --model file is read and parsed once (models::ModelFile); its kind picks
// the kind's command from kind_commands(), which has one entry per row of
// models::model_kinds().
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/cli/args.hpp"
#include "attnlab/cli/commands.hpp"
#include "attnlab/cli/train_scaffold.hpp"
#include "attnlab/core/error.hpp"
#include "attnlab/models/registry.hpp"

namespace attnlab::cli {

namespace {
using json = nlohmann::json;

// The value of --model in an argument list ("" if absent).
std::string model_arg(const Argv& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--model" && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind("--model=", 0) == 0) return args[i].substr(8);
  }
  return "";
}
// The value of --kind ("" if absent).
std::string kind_arg(const Argv& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--kind" && i + 1 < args.size()) return args[i + 1];
    if (args[i].rfind("--kind=", 0) == 0) return args[i].substr(7);
  }
  return "";
}
bool wants_help(const Argv& args) {
  for (const auto& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

std::string kinds_help(bool eval) {
  std::ostringstream os;
  for (const auto& k : models::model_kinds()) {
    const KindCommands* c = find_kind_commands(k.name);
    std::string left = "  " + k.name;
    left += std::string(left.size() < 15 ? 15 - left.size() : 1, ' ');
    os << left << (c ? (eval ? c->eval_about : c->predict_about) : "(no command)") << "\n";
  }
  return os.str();
}

// The generic predict: one JSON input (the kind's predict_input) -> JSON output.
int predict_json(const models::ModelFile& f, const Argv& argv) {
  Args a("predict", {model_flag("model file"),
                     {"input", "JSON", "", "the input as JSON (see below)"},
                     file_flag("read the JSON input from a file"),
                     json_flag("print compact JSON (default: indented)")});
  if (a.parse_or_help(argv, "attnlab predict --model PATH --input JSON",
                            "Runs a " + f.kind->title + " model on one input and prints the output\n"
                            "as JSON. Input: " + f.kind->predict_input)) return 0;
  std::string text = a.get("input");
  if (!a.get("file").empty()) text = read_input_file(a.get("file"));
  if (text.empty())
    throw UsageError("predict needs --input JSON (or --file PATH); a " + f.kind->name +
                     " model takes " + f.kind->predict_input);
  json in;
  try {
    in = json::parse(text);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--input is not valid JSON: ") + e.what());
  }
  const json out = models::load_model(f)->predict(in);
  std::cout << (a.flag("json") ? out.dump() : out.dump(2)) << std::endl;
  return 0;
}

}  // namespace

const std::vector<KindCommands>& kind_commands() {
  static const std::vector<KindCommands> cmds = {
      {"toy-reverse", cmd_eval_toy, cmd_predict_toy,
       "loss, token accuracy and exact match on generated sequences",
       "greedy decoding of tokens given as arguments (--json: attention too)"},
      {"seq2seq", cmd_eval_seq2seq, cmd_predict_seq2seq,
       "G2P: WER/PER greedy and beam on CMUdict; dates: exact match per format; your pairs "
       "(--test FILE): exact match, token error rate, BLEU",
       "translate a word, date or text (--beam, --precision; --json: probs and attention)"},
      {"transformer-seq2seq", cmd_eval_seq2seq, cmd_predict_seq2seq,
       "G2P: WER/PER greedy and beam on CMUdict (int8, int16 or float32 decoding); your pairs "
       "(--test FILE): exact match, token error rate, BLEU",
       "translate a word or text (--beam; --json: probs and attention)"},
      {"han", cmd_eval_han, cmd_predict_han,
       "spam model: accuracy, precision, recall, F1, ROC-AUC on SpamAssassin, beside a tf-idf "
       "baseline; your documents (--test FILE or the recorded split): per-class precision, recall, "
       "F1, confusion matrix",
       "classify a text: probability per label, sentence and word weights (--input TEXT or --file PATH)"},
      {"mmoe", cmd_eval_mmoe, nullptr,
       "MSE per task on fresh samples of the synthetic tasks the model was trained on",
       "--input '{\"x\": [[...]]}' -> predictions per task and gate weights"},
      {"din", cmd_eval_din, nullptr,
       "ROC-AUC and log-loss on fresh samples of the synthetic behaviour data",
       "--input '{\"history\": [[item, category], ...], \"candidate\": [item, category]}'"},
      {"autoint", cmd_eval_autoint, nullptr,
       "ROC-AUC and log-loss on fresh samples of the synthetic CTR data",
       "--input '{\"ids\": [[one id per field], ...]}' -> p(click)"},
      {"char-lm", cmd_eval_lm, nullptr,
       "bits per character on the held-out State of the Union addresses, per memory length",
       "--input '{\"prompt\": \"...\", \"n\": 200, \"temperature\": 1, \"top_k\": 0, \"seed\": 0}'"},
  };
  return cmds;
}

const KindCommands* find_kind_commands(const std::string& kind) {
  for (const auto& c : kind_commands())
    if (kind == c.kind) return &c;
  return nullptr;
}

namespace {
// Reads the --model file once and runs the kind's command (eval or predict).
int dispatch(const Argv& argv, bool eval) {
  const char* cmd = eval ? "eval" : "predict";
  const std::string path = model_arg(argv);
  if (path.empty()) {
    const std::string kind = kind_arg(argv);
    if (!kind.empty()) {  // the help of one kind's command, without a model file
      const models::ModelKind* k = models::find_model_kind(kind);
      if (!k) throw UsageError("unknown model kind '" + kind + "' (known: " + models::model_kind_names() + ")");
      if (!wants_help(argv))
        throw UsageError(std::string("--kind goes with --help ('attnlab ") + cmd + " --kind " + kind +
                         " --help'); to run a model give --model PATH");
      const KindCommands* c = find_kind_commands(kind);
      models::ModelFile f;  // a command's --help reads nothing of the file but its kind
      f.source = "(help)";
      f.kind = k;
      if (!eval) return c && c->predict ? c->predict(f, {"--help"}) : predict_json(f, {"--help"});
      if (!c || !c->eval) throw Error("the CLI cannot evaluate model kind '" + kind + "'");
      return c->eval(f, {"--help"});
    }
    if (wants_help(argv)) {
      std::cout << "usage: attnlab " << cmd << " --model PATH [flags]\n\n"
                << (eval ? "Evaluates a model file; what is measured depends on its kind:\n"
                         : "Runs a model file on one input; the input depends on its kind:\n")
                << kinds_help(eval)
                << "\nflags of every kind:\n"
                   "  --model PATH            the model file (written by 'attnlab train')\n"
                   "  --json                  print JSON on stdout\n"
                   "  --help                  with --model: the flags of that file's kind\n"
                   "  --kind KIND --help      the flags of one kind (" + models::model_kind_names() + ")\n";
      return 0;
    }
    throw UsageError(std::string(cmd) + " needs --model PATH (see 'attnlab " + cmd + " --help')");
  }
  const models::ModelFile f = models::read_model_file(path);
  if (wants_attribution(argv)) return eval ? cmd_eval_attribution(f, argv) : cmd_predict_attribution(f, argv);
  const KindCommands* c = find_kind_commands(f.kind->name);
  if (!c) throw Error(path + ": the CLI has no commands for model kind '" + f.kind->name + "'");
  if (!eval) return c->predict ? c->predict(f, argv) : predict_json(f, argv);
  if (!c->eval) throw Error(path + ": the CLI cannot evaluate model kind '" + f.kind->name + "'");
  return c->eval(f, argv);
}
}  // namespace

int cmd_eval(const Argv& argv) { return dispatch(argv, true); }
int cmd_predict(const Argv& argv) { return dispatch(argv, false); }

int cmd_describe(const Argv& argv) {
  Args a("describe", {model_flag("model file"),
                      json_flag()});
  if (a.parse_or_help(argv, "attnlab describe --model PATH [--json]",
                            "Shows a model file's kind, config, vocabulary size, parameter count,\n"
                            "storage type and metadata (without loading the model).")) return 0;
  std::string path = a.get("model");
  if (path.empty() && a.positional().size() == 1) path = a.positional()[0];
  if (path.empty()) throw UsageError("describe needs --model PATH");
  const json d = models::describe_model(models::read_model_file(path));
  if (a.flag("json")) {
    std::cout << d.dump() << std::endl;
    return 0;
  }
  std::cout << path << ": " << d["kind"].get<std::string>() << " (" << d["title"].get<std::string>()
            << "), " << d["parameters"] << " parameters in " << d["tensors"] << " tensors ("
            << d["dtype"].get<std::string>() << "), vocabulary " << d["vocab_size"] << "\n"
            << "config: " << d["config"].dump() << "\n";
  for (const auto& [k, v] : d["metadata"].items()) {
    std::string s = v.get<std::string>();
    if (s.size() > 100) s = s.substr(0, 97) + "...";
    std::cout << "  " << k << ": " << s << "\n";
  }
  return 0;
}

int cmd_average(const Argv& argv) {
  Args a("average", {{"out", "PATH", "", "the averaged model file (written atomically)"},
                     {"dtype", "f32|f16", "", "storage type (default: that of the first file)"}});
  if (a.parse_or_help(argv, "attnlab average --out PATH MODEL MODEL [MODEL...]",
                            "Averages the parameters of model files of one kind, configuration and\n"
                            "vocabulary, e.g. the last epochs of one training run (checkpoint\n"
                            "averaging, as Vaswani et al. 2017 did), into one model file. The first\n"
                            "file's metadata is kept; 'averaged_from' lists the inputs.")) return 0;
  const std::vector<std::string>& in = a.positional();
  if (in.size() < 2) throw UsageError("average needs two or more model files, got " + std::to_string(in.size()));
  if (a.get("out").empty()) throw UsageError("average needs --out PATH");
  const models::ModelFile first = models::read_model_file(in[0]);
  const auto m = models::load_model(first);
  const ParamList& ps = m->params();
  std::string from = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    const models::ModelFile f = models::read_model_file(in[i]);
    if (f.info.kind != first.info.kind || f.info.config != first.info.config || f.info.vocab != first.info.vocab)
      throw Error(in[i] + ": not the kind, configuration and vocabulary of " + in[0] +
                  " (only models of one architecture can be averaged)");
    const auto mi = models::load_model(f);
    const auto& a_items = ps.items();
    const auto& b_items = mi->params().items();
    ATTNLAB_CHECK(a_items.size() == b_items.size(), in[i], ": ", b_items.size(), " parameters, ", in[0], " has ", a_items.size());
    for (size_t j = 0; j < a_items.size(); ++j) {
      Param& p = *a_items[j].second;
      const Param& q = *b_items[j].second;
      ATTNLAB_CHECK(a_items[j].first == b_items[j].first && p.value.size() == q.value.size(), in[i],
                    ": parameter ", b_items[j].first, " does not match ", a_items[j].first);
      for (size_t e = 0; e < p.value.size(); ++e) p.value.data()[e] += q.value.data()[e];
    }
    from += ", " + in[i];
  }
  const float inv = 1.f / float(in.size());
  for (const auto& [name, p] : ps.items())
    for (size_t e = 0; e < p->value.size(); ++e) p->value.data()[e] *= inv;
  io::SaveOptions o;
  o.dtype = a.get("dtype").empty() ? first.tensors.tensors.at(0).stored : io::dtype_from_string(a.get("dtype"));
  o.meta = first.info.extra;
  o.meta["averaged_from"] = from;
  io::write_bytes(a.get("out"), m->save(o));
  std::cout << "wrote " << a.get("out") << ": the mean of " << in.size() << " " << first.info.kind
            << " models (" << ps.count() << " parameters)" << std::endl;
  return 0;
}

int cmd_models(const Argv& argv) {
  Args a("models", {json_flag("print the list as JSON")});
  if (a.parse_or_help(argv, "attnlab models [--json]",
                            "Lists the model kinds that eval / predict / describe read, with the\n"
                            "command that trains each and the JSON input its predict takes.")) return 0;
  if (a.flag("json")) {
    std::cout << models::model_kinds_json().dump() << std::endl;
    return 0;
  }
  for (const auto& k : models::model_kinds())
    std::cout << k.name << ": " << k.title << "\n  " << k.description << "\n  train: "
              << (k.train.empty() ? "(no CLI command)" : k.train)
              << "\n  predict input: " << k.predict_input << "\n";
  return 0;
}

}  // namespace attnlab::cli
