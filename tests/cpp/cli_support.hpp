// Running the qkv-lesson tool as a separate process, for the command-line tests: what it prints and how
// it exits are what is tested, not what the library returns.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace qkv::test {

struct CliRun {
  std::string out;
  std::string err;
  bool exited = false;  // false: killed by a signal (or popen failed)
  int status = -1;      // the exit status when `exited`
};

// A fresh path under the test's temporary directory.
inline std::string temp_path(const std::string& stem) {
  static int counter = 0;
  return ::testing::TempDir() + "qkv_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) +
         "_" + stem;
}

inline std::string write_temp(const std::string& stem, const std::string& text) {
  const std::string path = temp_path(stem);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// One shell word, whatever it holds.
inline std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs `qkv-lesson <args>` with `stdin_text` on standard input (empty by default); stdout and stderr are
// captured separately.
inline CliRun run_cli(const std::string& args, const std::string& stdin_text = "") {
  const std::string in = write_temp("stdin", stdin_text);
  const std::string err = temp_path("stderr");
  const std::string command = quoted(QKV_CLI_PATH) + " " + args + " <" + quoted(in) + " 2>" + quoted(err);
  CliRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  // sh reports a child killed by signal n as 128 + n: status 2 can only be our own exit.
  run.exited = status != -1 && WIFEXITED(status);
  run.status = run.exited ? WEXITSTATUS(status) : -1;
  run.err = read_file(err);
  std::remove(in.c_str());
  std::remove(err.c_str());
  return run;
}

// The same, with each argument passed as one word.
inline CliRun run_cli(const std::vector<std::string>& arguments) {
  std::string args;
  for (const std::string& argument : arguments) args += (args.empty() ? "" : " ") + quoted(argument);
  return run_cli(args);
}

}  // namespace qkv::test
