// Prose with numbered slots: "k₀ went from {0} to {1}" and the slots' texts. One small function fills every
// sentence the exercises compute, instead of a chain of string concatenations per sentence (those chains were
// most of the page's largest WebAssembly function: see docs/performance.md, "The download").
#pragma once

#include <initializer_list>
#include <string>

namespace qkv {

// A slot's text, a C string or a std::string, held by address: a call site stores one pointer per slot (no
// length, no copy). Only for fill's arguments, which outlive the call.
class Slot {
 public:
  Slot(const char* text) : text_(text) {}
  Slot(const std::string& text) : string_(&text) {}
  void append_to(std::string& out) const {
    if (string_)
      out += *string_;
    else
      out += text_;
  }
  std::string text() const {
    std::string out;
    append_to(out);
    return out;
  }

 private:
  const char* text_ = nullptr;
  const std::string* string_ = nullptr;
};

// `pattern` with each "{0}" … "{9}" replaced by that slot's text (a slot may appear more than once or not
// at all). Everything else is copied as it stands, a "{" too, and slot texts are never searched for slots.
std::string fill(const char* pattern, std::initializer_list<Slot> slots);

}  // namespace qkv
