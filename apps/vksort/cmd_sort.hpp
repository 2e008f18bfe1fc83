// SPDX-License-Identifier: MIT
// What vksort sort's two paths (cmd_sort.cpp in memory, cmd_sort_external.cpp out of core) share
// beyond commands.hpp.
#pragma once

#include <ostream>

#include "commands.hpp"

namespace vksort::cli {

// Where -v's line goes: stdout, unless an output is stdout itself (`vksort sort -v in.bin /dev/stdout
// | ...`), where the line would land in the sorted data: then stderr.
std::ostream& verbose_stream(const SortCommand& command);

}  // namespace vksort::cli
