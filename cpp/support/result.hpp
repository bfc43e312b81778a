// Result<T, E>: a value or a typed error. em++ 3.1.6 has no std::expected, so we keep our own.
#pragma once

#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

namespace qkv {

// Marks a value as the error alternative, so Result<T, E> works even when T and E are the same type.
template <class E>
struct Failure {
  E error;
};

template <class E>
Failure<std::decay_t<E>> fail(E&& error) {
  return {std::forward<E>(error)};
}

template <class T, class E>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  template <class F, class = std::enable_if_t<std::is_convertible_v<F, E>>>
  Result(Failure<F> failure) : state_(std::in_place_index<1>, E(std::move(failure.error))) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Reaching for the wrong alternative is a bug in the caller, never a user error: stop at once.
  const T& value() const& { return ok() ? std::get<0>(state_) : (std::abort(), std::get<0>(state_)); }
  T& value() & { return ok() ? std::get<0>(state_) : (std::abort(), std::get<0>(state_)); }
  T&& value() && {
    return ok() ? std::get<0>(std::move(state_)) : (std::abort(), std::get<0>(std::move(state_)));
  }
  const E& error() const { return ok() ? (std::abort(), std::get<1>(state_)) : std::get<1>(state_); }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, E> state_;
};

// For operations that succeed with nothing to return.
struct Unit {};

}  // namespace qkv
