// Names and classes of pickle opcodes (protocols 0-5), for error messages.
#include "data/pickle_opcodes.h"

#include <cstdio>

namespace dls::data::detail {

// Names of all opcodes of protocols 0-5, for messages.
// clang-format off
const char* opcode_name(unsigned char op) {
  switch (op) {
    case '(': return "MARK";            case '.': return "STOP";
    case '0': return "POP";             case '1': return "POP_MARK";
    case '2': return "DUP";             case 'F': return "FLOAT";
    case 'I': return "INT";             case 'J': return "BININT";
    case 'K': return "BININT1";         case 'L': return "LONG";
    case 'M': return "BININT2";         case 'N': return "NONE";
    case 'P': return "PERSID";          case 'Q': return "BINPERSID";
    case 'R': return "REDUCE";          case 'S': return "STRING";
    case 'T': return "BINSTRING";       case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";         case 'X': return "BINUNICODE";
    case 'a': return "APPEND";          case 'b': return "BUILD";
    case 'c': return "GLOBAL";          case 'd': return "DICT";
    case '}': return "EMPTY_DICT";      case 'e': return "APPENDS";
    case 'g': return "GET";             case 'h': return "BINGET";
    case 'i': return "INST";            case 'j': return "LONG_BINGET";
    case 'l': return "LIST";            case ']': return "EMPTY_LIST";
    case 'o': return "OBJ";             case 'p': return "PUT";
    case 'q': return "BINPUT";          case 'r': return "LONG_BINPUT";
    case 's': return "SETITEM";         case 't': return "TUPLE";
    case ')': return "EMPTY_TUPLE";     case 'u': return "SETITEMS";
    case 'G': return "BINFLOAT";        case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";  case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";         case 0x82: return "EXT1";
    case 0x83: return "EXT2";           case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";         case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";         case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";       case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";          case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";      case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";      case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";   case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";          case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";    case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}
// clang-format on

// Opcodes that import, call or look up Python objects.
bool executes_code(unsigned char op) {
  switch (op) {
    case 'c':
    case 0x93:
    case 'R':
    case 'b':
    case 0x81:
    case 0x92:
    case 'i':
    case 'o':
    case 'P':
    case 'Q':
    case 0x82:
    case 0x83:
    case 0x84:
      return true;
    default:
      return false;
  }
}

std::string hex_byte(unsigned char op) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02x", op);
  return text;
}

}  // namespace dls::data::detail
