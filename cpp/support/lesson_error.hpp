// The one error type that reaches the learner and the command line: which layer refused, the field and
// cell it is about, and the library's own message. The learner's words for it (the page's field names, a
// sentence) are the response's: response/response.hpp.
#pragma once

#include <cstdint>
#include <string>

namespace qkv {

enum class ErrorKind {
  Tensor,          // a tensor's shape or values (tensor/)
  Initialization,  // a parameter's name or initialisation (nn/)
  Qkv,             // the projection layer's widths or input (attention/)
  Upstream,        // an upstream gradient that does not fit the outputs
  Size,            // a size the lesson does not accept
  Number,          // a cell or an answer that could not be read
  Exercise,        // an unknown exercise or the wrong number of responses
  Arguments,       // a call with arguments of the wrong type
  SelfScore,       // the self-score experiment's seed or sizes
  Budget,          // a request that would cost more work than the documented limits
  Attempts,        // a check past the attempts an author allowed for a question
  Allocation,      // memory the machine or the browser could not give
  Io,              // a file or stream that could not be read or written
  Interrupted,     // the command-line tool stopped by SIGINT or SIGTERM
  Internal,        // a bug: reported, never hidden
};

// "tensor", "initialization", ...: the names the JSON output and the page use.
const char* kind_name(ErrorKind kind);

struct LessonError {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;  // the library's message, unchanged ("linear input final width must equal 3, got 4")
  std::string field;    // the request field it is about ("input", "query_weight", "batch", ...), or ""
  std::int64_t index = -1;  // the cell of that field, row-major, or -1
};

}  // namespace qkv
