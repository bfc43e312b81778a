#include "support/lesson_error.hpp"

namespace qkv {

const char* kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Tensor:
      return "tensor";
    case ErrorKind::Initialization:
      return "initialization";
    case ErrorKind::Qkv:
      return "qkv";
    case ErrorKind::Upstream:
      return "upstream";
    case ErrorKind::Size:
      return "size";
    case ErrorKind::Number:
      return "number";
    case ErrorKind::Exercise:
      return "exercise";
    case ErrorKind::Arguments:
      return "arguments";
    case ErrorKind::SelfScore:
      return "self_score";
    case ErrorKind::Budget:
      return "budget";
    case ErrorKind::Attempts:
      return "attempts";
    case ErrorKind::Allocation:
      return "allocation";
    case ErrorKind::Io:
      return "io";
    case ErrorKind::Interrupted:
      return "interrupted";
    case ErrorKind::Internal:
      return "internal";
  }
  return "internal";
}

}  // namespace qkv
