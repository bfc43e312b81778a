// The field lists' two words, defined once for every described type (the lesson's calls, the benchmark's,
// the scale section's): QKV_DESCRIBE(Type) { QKV_FIELD(member); ... } opens a type's field list, a describe()
// function that the readers and writers (response/fields.hpp) and `qkv-lesson fields` visit as
// v("member", t.member), member by member in the listed order, and names the type for that listing
// (described_name), from which scripts/generate-core-types.mjs writes web/src/lesson/core-api.d.ts.
#pragma once

// clang-format off
#define QKV_DESCRIBE(Type)                                                   \
  inline constexpr const char* described_name(const Type*) { return #Type; } \
  template <class V>                                                         \
  void describe(V& v, const Type& t)
#define QKV_FIELD(name) v(#name, t.name)
// clang-format on
