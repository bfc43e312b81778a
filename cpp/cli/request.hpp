// The evidence command's request path, from bytes to the JSON it prints: reading the request (with a byte
// limit), parsing it, converting it to a ProjectionRequest and the evidence to JSON. It lives outside
// main.cpp so that the fuzzer runs exactly the code the command-line tool runs.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <string>

#include "chapter26/projection_evidence.hpp"

namespace qkv::cli {

using nlohmann::json;

// A rejected request or failed step: `kind` names the layer ("io", "json", "input", "tensor", "qkv",
// "upstream", "budget", ...), `message` its own words, `field` the request field, when there is one.
struct CliError {
  std::string kind;
  std::string message;
  std::string field;
};

CliError cli_error(const LessonError& error);

// {"error": {"kind", "message"[, "field"]}}.
json error_json(const CliError& error);

// One line of JSON that never throws: bytes that are not UTF-8 (a file name, an argument, a JSON parse
// error quoting the input) are written as U+FFFD instead of aborting the dump.
std::string dump_line(const json& document);

// All of `in`, at most kMaxRequestBytes; `name` is what messages call it ("standard input", a path).
Result<std::string, CliError> read_limited(std::istream& in, const std::string& name);
// How long a FIFO given as --input may stay silent (no writer, or a writer that sends nothing): opening a
// FIFO for reading would otherwise wait for a writer for ever. Past it, the request is refused (kind "io").
constexpr int kFifoWaitMilliseconds = 10000;

// The request file at `path`, or standard input for "-". A FIFO is read as data arrives, and refused once
// it has been silent for `fifo_wait_ms` (tests pass a shorter wait than the tool's).
Result<std::string, CliError> read_request(const std::string& path, int fifo_wait_ms = kFifoWaitMilliseconds);

// The request document's fields as a ProjectionRequest, every malformed field named.
Result<ProjectionRequest, CliError> request_from_json(const json& document);

// The whole evidence command after reading: parse `text`, build the request, compute, and return the
// output document (or the error the command prints).
Result<json, CliError> evidence_from_text(const std::string& text);

}  // namespace qkv::cli
