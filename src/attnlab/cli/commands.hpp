// Subcommands implemented outside main.cpp.
#pragma once
#include <string>
#include <vector>

namespace attnlab::cli {
int cmd_experiment(const std::vector<std::string>& args);  // attnlab experiment mmoe ...
int cmd_train_mmoe(const std::vector<std::string>& args);  // attnlab train mmoe ...
}  // namespace attnlab::cli
