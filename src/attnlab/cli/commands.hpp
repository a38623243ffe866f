// Subcommands implemented outside main.cpp.
#pragma once
#include <string>
#include <vector>

namespace attnlab::cli {
int cmd_experiment(const std::vector<std::string>& args);  // attnlab experiment mmoe ...
int cmd_train_mmoe(const std::vector<std::string>& args);  // attnlab train mmoe ...
// attnlab train g2p|dates ... (args[0] is the task); eval / predict on seq2seq model files
int cmd_train_seq2seq(const std::vector<std::string>& args);
// attnlab train g2p --arch transformer ... (args[0] is the task; reached via cmd_train_seq2seq)
int cmd_train_transformer(const std::vector<std::string>& args);
bool is_seq2seq_model(const std::vector<std::string>& args);  // --model names a seq2seq file
int cmd_eval_seq2seq(const std::vector<std::string>& args);
int cmd_predict_seq2seq(const std::vector<std::string>& args);
int cmd_train_han(const std::vector<std::string>& args);    // attnlab train han ...
int cmd_eval_han(const std::vector<std::string>& args);     // attnlab eval --model HAN-FILE ...
int cmd_predict_han(const std::vector<std::string>& args);  // attnlab predict --model HAN-FILE ...
bool is_han_model(const std::vector<std::string>& args);    // --model names a HAN file
}  // namespace attnlab::cli
