// Names and classes of pickle opcodes (protocols 0-5), for error messages.
#pragma once

#include <string>

namespace dls::data::detail {

// The opcode's name as in Python's pickletools ("GLOBAL"), or nullptr for a byte that is
// no opcode.
const char* opcode_name(unsigned char op);

// True for the opcodes that import, call or look up Python objects (GLOBAL, REDUCE, ...).
bool executes_code(unsigned char op);

// "0x63"
std::string hex_byte(unsigned char op);

}  // namespace dls::data::detail
