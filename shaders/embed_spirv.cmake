# SPDX-License-Identifier: MIT
# cmake -DIN=x.spv -DOUT=x.spv.inc -P embed_spirv.cmake
# Turns a SPIR-V binary into a C initializer list of 32-bit words ({0x07230203u, ...}) so the runtime
# carries its shaders inside the library and never reads .spv files at run time.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" len)
math(EXPR rem "${len} % 8")
if(len EQUAL 0 OR NOT rem EQUAL 0)
  message(FATAL_ERROR "${IN}: not a SPIR-V binary (size is not a multiple of 4 bytes)")
endif()
# SPIR-V words are little-endian in the file: byte-swap each group of four bytes into a word literal.
string(REGEX REPLACE "([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])"
       "0x\\4\\3\\2\\1u," words "${hex}")
file(WRITE "${OUT}.tmp" "{${words}}\n")
file(RENAME "${OUT}.tmp" "${OUT}")
