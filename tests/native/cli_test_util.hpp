// Shared by the CLI tests: runs the built `attnlab` binary (next to the test
// executable) in a fresh temporary directory and captures exit code, stdout
// and stderr. A fixture derives from CliTest and may add its own SetUp checks
// (call CliTest::SetUp() first).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab::testing {

inline std::string self_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct CliRun {
  int code;
  std::string out, err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = self_dir() + "/attnlab";
    if (access(bin_.c_str(), X_OK) != 0) GTEST_SKIP() << "attnlab binary not built at " << bin_;
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name();
    dir_ = "/tmp/attnlab_" + name + "_" + std::to_string(getpid());
    ASSERT_EQ(std::system(("mkdir -p " + dir_).c_str()), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) (void)std::system(("rm -rf " + dir_).c_str());
  }
  // `attnlab <args>` run in dir_ (or in cwd) -> exit code, stdout, stderr
  CliRun run(const std::string& args, const std::string& cwd = "") {
    const std::string o = dir_ + "/out.txt", e = dir_ + "/err.txt";
    const std::string cmd = "cd " + (cwd.empty() ? dir_ : cwd) + " && " + bin_ + " " + args + " >" + o + " 2>" + e;
    const int st = std::system(cmd.c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(o), slurp(e)};
  }
  // `attnlab <args>` must exit 0 and its stdout hold every one of `parts`
  void expect_output(const std::string& args, const std::vector<std::string>& parts) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
    for (const std::string& part : parts) EXPECT_NE(r.out.find(part), std::string::npos) << args << ": " << part;
  }
  // `attnlab <args>` must exit with `code` and its stderr hold every one of `parts`
  void expect_error(const std::string& args, int code, const std::vector<std::string>& parts) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, code) << args;
    for (const std::string& part : parts) EXPECT_NE(r.err.find(part), std::string::npos) << args << "\n" << r.err;
  }
  // writes text (bytes as given) to dir_/name
  void write(const std::string& name, const std::string& text) {
    std::ofstream f(dir_ + "/" + name, std::ios::binary);
    f << text;
  }
  // the last line of out that is a JSON object with "event": ev (null if none)
  static nlohmann::json event(const std::string& out, const std::string& ev) {
    nlohmann::json last;
    std::istringstream ss(out);
    for (std::string line; std::getline(ss, line);) {
      if (line.empty() || line[0] != '{') continue;
      const nlohmann::json j = nlohmann::json::parse(line);
      if (j.value("event", "") == ev) last = j;
    }
    return last;
  }
  // Runs the `attnlab ...` lines of the README between <!-- marker --> and <!-- /marker -->
  // as written, on less data and one epoch (--count N -> 600; train gets --epochs 1), so the
  // README's example stays true. Each must exit 0; returns how many ran.
  size_t run_readme_example(const std::string& marker) {
    const std::string readme = slurp(std::string(ATTNLAB_SOURCE_DIR) + "/README.md");
    const size_t a = readme.find("<!-- " + marker + " -->"), b = readme.find("<!-- /" + marker + " -->");
    if (a == std::string::npos || b == std::string::npos) {
      ADD_FAILURE() << "README has no " << marker << " block";
      return 0;
    }
    std::istringstream ss(readme.substr(a, b - a));
    size_t ran = 0;
    for (std::string line; std::getline(ss, line);) {
      if (line.rfind("attnlab ", 0) != 0) continue;
      std::string cmd = line.substr(8);
      cmd = cmd.substr(0, cmd.find(" #"));  // the comment
      cmd = std::regex_replace(cmd, std::regex("--count [0-9]+"), "--count 600");
      if (cmd.rfind("train ", 0) == 0) cmd += " --epochs 1";
      const CliRun r = run(cmd);
      EXPECT_EQ(r.code, 0) << line << "\n" << r.err;
      ++ran;
    }
    return ran;
  }
  std::string bin_, dir_;
};

}  // namespace attnlab::testing
