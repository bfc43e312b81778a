// The evidence request path: bytes in (with a limit), JSON out, every failure a LessonError.
#include "cli/request.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/limits.hpp"

namespace qkv::cli {

ordered_json error_json(const api::ErrorView& error) {
  ordered_json body{{"kind", error.kind}, {"message", error.message}};
  if (!error.field.empty()) body["field"] = error.field;
  return ordered_json{{"error", body}};
}

std::string dump_line(const ordered_json& document) {
  return document.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

namespace {
LessonError too_long(const std::string& name) {
  return {ErrorKind::Budget,
          name + " holds more than the limit of " + format_count(kMaxRequestBytes) + " bytes (8 MiB)"};
}
}  // namespace

Result<std::string, LessonError> read_limited(std::istream& in, const std::string& name) {
  // Chunked, so that an endless source (/dev/zero, a pipe that never closes its end) costs at most the
  // limit plus one chunk before it is refused.
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxRequestBytes) return fail(too_long(name));
  }
  if (in.bad()) return fail(LessonError{ErrorKind::Io, "cannot read " + name});
  return text;
}

namespace {

// A FIFO, opened without waiting for a writer (O_NONBLOCK: a plain open blocks until one appears), then read
// chunk by chunk, each awaited with poll() for at most `wait_ms`. Before any writer has come, Linux reports
// neither data nor hang-up, so poll() times out; once one has come and gone, read() gives end of input.
Result<std::string, LessonError> read_fifo(const std::string& path, int wait_ms) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(LessonError{ErrorKind::Io, "cannot read " + path});
  std::string text;
  char chunk[65536];
  Result<std::string, LessonError> result = fail(LessonError{ErrorKind::Io, "cannot read " + path});
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, wait_ms);
    if (polled < 0 && errno == EINTR) continue;
    if (polled < 0) break;
    if (polled == 0) {
      const std::string limit =
          wait_ms % 1000 == 0 ? std::to_string(wait_ms / 1000) + " s" : std::to_string(wait_ms) + " ms";
      result = fail(LessonError{ErrorKind::Io, "cannot read " + path +
                                                   ": it is a FIFO that sent no data within the limit of " +
                                                   limit + " (a FIFO needs a writer)"});
      break;
    }
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) break;
    if (got == 0) {
      result = std::move(text);
      break;
    }
    text.append(chunk, static_cast<std::size_t>(got));
    if (text.size() > kMaxRequestBytes) {
      result = fail(too_long(path));
      break;
    }
  }
  ::close(fd);
  return result;
}

}  // namespace

Result<std::string, LessonError> read_request(const std::string& path, int fifo_wait_ms) {
  if (path == "-") return read_limited(std::cin, "standard input");
  // A directory opens like a file on Linux and then reads as nothing: refuse it by name.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    return fail(LessonError{ErrorKind::Io, "cannot read " + path + ": it is a directory"});
  if (std::filesystem::is_fifo(path, ignored)) return read_fifo(path, fifo_wait_ms);
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(LessonError{ErrorKind::Io, "cannot read " + path});
  return read_limited(file, path);
}

ordered_json evidence_from_text(const std::string& text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {
    // nlohmann's message names the position, and "number overflow" for literals such as 1e400. It may
    // quote bytes of the input that are not UTF-8; dump_line() writes those as U+FFFD.
    return error_json(LessonError{ErrorKind::Arguments, error.what()});
  }
  // The same request and response types as the tests' WebAssembly module's evidence().
  auto request = request_from_json<api::EvidenceRequest>(document);
  if (!request) return error_json(request.error());
  return response_json(api::evidence(*request));
}

}  // namespace qkv::cli
