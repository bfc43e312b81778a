// The evidence command's request path, from bytes to the JSON it prints: reading the request (with a byte
// limit), parsing it, reading it through the API's field lists (cli/json_fields.hpp) and writing the
// response through them. It lives outside main.cpp so that the fuzzer runs exactly the code the
// command-line tool runs. Every failure is a LessonError, whose kind_name() is the kind the tool prints.
#pragma once

#include <istream>
#include <string>

#include "cli/json_fields.hpp"

namespace qkv::cli {

// {"error": {"kind", "message"[, "field"]}}: the ErrorView's kind, message and field (when there is one);
// its sentence speaks to the page's learner and its index to a cell the page shows, so the tool leaves
// them out.
ordered_json error_json(const api::ErrorView& error);
inline ordered_json error_json(const LessonError& error) { return error_json(api::error_view(error)); }

// One line of JSON that never throws: bytes that are not UTF-8 (a file name, an argument, a JSON parse
// error quoting the input) are written as U+FFFD instead of aborting the dump.
std::string dump_line(const ordered_json& document);

// A described response as the tool prints it: its fields without "ok" on success, else error_json().
template <class Response>
ordered_json response_json(const Response& response) {
  if (response.error) return error_json(*response.error);
  ordered_json out = to_json(response);
  out.erase("ok");
  return out;
}

// All of `in`, at most kMaxRequestBytes; `name` is what messages call it ("standard input", a path).
Result<std::string, LessonError> read_limited(std::istream& in, const std::string& name);
// How long a FIFO given as --input may stay silent (no writer, or a writer that sends nothing): opening a
// FIFO for reading would otherwise wait for a writer for ever. Past it, the request is refused (kind "io").
constexpr int kFifoWaitMilliseconds = 10000;

// The request file at `path`, or standard input for "-". A FIFO is read as data arrives, and refused once
// it has been silent for `fifo_wait_ms` (tests pass a shorter wait than the tool's).
Result<std::string, LessonError> read_request(const std::string& path,
                                              int fifo_wait_ms = kFifoWaitMilliseconds);

// The whole evidence command after reading: parse `text`, read it as an api::EvidenceRequest, compute, and
// return the document the command prints (the response, or its error: check for an "error" key).
ordered_json evidence_from_text(const std::string& text);

}  // namespace qkv::cli
