// The evidence request path: bytes in (with a limit), JSON out, every failure a CliError.
#include "cli/request.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/json_writer.hpp"
#include "support/budget.hpp"

namespace qkv::cli {

CliError cli_error(const LessonError& error) { return {kind_name(error.kind), error.message, error.field}; }

json error_json(const CliError& error) {
  json body{{"kind", error.kind}, {"message", error.message}};
  if (!error.field.empty()) body["field"] = error.field;
  return json{{"error", body}};
}

std::string dump_line(const json& document) {
  return document.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {
CliError too_long(const std::string& name) {
  return {"budget", name + " holds more than the limit of " + format_count(kMaxRequestBytes) + " bytes (8 MiB)", ""};
}
}  // namespace

Result<std::string, CliError> read_limited(std::istream& in, const std::string& name) {
  // Chunked, so that an endless source (/dev/zero, a pipe that never closes its end) costs at most the
  // limit plus one chunk before it is refused.
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxRequestBytes) return fail(too_long(name));
  }
  if (in.bad()) return fail(CliError{"io", "cannot read " + name});
  return text;
}

namespace {

// A FIFO, opened without waiting for a writer (O_NONBLOCK: a plain open blocks until one appears), then read
// chunk by chunk, each awaited with poll() for at most `wait_ms`. Before any writer has come, Linux reports
// neither data nor hang-up, so poll() times out; once one has come and gone, read() gives end of input.
Result<std::string, CliError> read_fifo(const std::string& path, int wait_ms) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(CliError{"io", "cannot read " + path});
  std::string text;
  char chunk[65536];
  Result<std::string, CliError> result = fail(CliError{"io", "cannot read " + path});
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, wait_ms);
    if (polled < 0 && errno == EINTR) continue;
    if (polled < 0) break;
    if (polled == 0) {
      const std::string limit =
          wait_ms % 1000 == 0 ? std::to_string(wait_ms / 1000) + " s" : std::to_string(wait_ms) + " ms";
      result = fail(CliError{"io", "cannot read " + path + ": it is a FIFO that sent no data within the limit of " +
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

Result<std::string, CliError> read_request(const std::string& path, int fifo_wait_ms) {
  if (path == "-") return read_limited(std::cin, "standard input");
  // A directory opens like a file on Linux and then reads as nothing: refuse it by name.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    return fail(CliError{"io", "cannot read " + path + ": it is a directory"});
  if (std::filesystem::is_fifo(path, ignored)) return read_fifo(path, fifo_wait_ms);
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(CliError{"io", "cannot read " + path});
  return read_limited(file, path);
}

namespace {

// {"shape": [non-negative integers], "values": [numbers]} at `path` (for messages, e.g. "upstream.key").
Result<Tensor, CliError> tensor_from_json(const json& parent, const std::string& key,
                                          const std::string& path) {
  const auto bad = [&path](const std::string& what) { return fail(CliError{"input", path + " " + what}); };
  if (!parent.contains(key)) return bad("is missing");
  const json& object = parent.at(key);
  if (!object.is_object()) return bad("must be an object with \"shape\" and \"values\"");
  if (!object.contains("shape") || !object.at("shape").is_array()) return bad("needs a \"shape\" array");
  if (!object.contains("values") || !object.at("values").is_array()) return bad("needs a \"values\" array");
  Shape shape;
  for (const json& extent : object.at("shape")) {
    if (!extent.is_number_unsigned()) return bad("shape entries must be non-negative integers");
    shape.push_back(extent.get<std::uint64_t>());
  }
  std::vector<double> values;
  const json& items = object.at("values");
  values.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_number()) return bad("value at index " + std::to_string(i) + " is not a number");
    values.push_back(items[i].get<double>());
  }
  auto tensor = Tensor::from_values(std::move(shape), std::move(values));
  if (!tensor) return fail(CliError{"tensor", tensor.error().message()});
  return std::move(*tensor);
}

}  // namespace

Result<ProjectionRequest, CliError> request_from_json(const json& document) {
  if (!document.is_object()) return fail(CliError{"input", "the request must be a JSON object"});
  ProjectionRequest request;
  const std::pair<const char*, Tensor*> fields[] = {{"input", &request.input},
                                                    {"query_weight", &request.query_weight},
                                                    {"key_weight", &request.key_weight},
                                                    {"value_weight", &request.value_weight}};
  for (const auto& [name, target] : fields) {
    auto tensor = tensor_from_json(document, name, name);
    if (!tensor) return fail(tensor.error());
    *target = std::move(*tensor);
  }
  if (document.contains("upstream")) {
    const json& upstream = document.at("upstream");
    if (!upstream.is_object()) return fail(CliError{"input", "upstream must be an object"});
    Upstreams tensors;
    const std::pair<const char*, Tensor*> branches[] = {
        {"query", &tensors.query}, {"key", &tensors.key}, {"value", &tensors.value}};
    for (const auto& [name, target] : branches) {
      auto tensor = tensor_from_json(upstream, name, std::string("upstream.") + name);
      if (!tensor) return fail(tensor.error());
      *target = std::move(*tensor);
    }
    request.upstream = std::move(tensors);
  }
  return request;
}

Result<json, CliError> evidence_from_text(const std::string& text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {
    // nlohmann's message names the position, and "number overflow" for literals such as 1e400. It may
    // quote bytes of the input that are not UTF-8; dump_line() writes those as U+FFFD.
    return fail(CliError{"json", error.what()});
  }
  auto request = request_from_json(document);
  if (!request) return fail(request.error());
  auto evidence = compute_projection_evidence(*request);
  if (!evidence) return fail(cli_error(evidence.error()));
  // The same response type the tests' WebAssembly module returns; the command line leaves out its "ok".
  json out = to_json(api::projection_response(*evidence));
  out.erase("ok");
  return out;
}

}  // namespace qkv::cli
