// Reading a whole input file into memory, the first step of every loader (CSV, and later IDX).
// Loading the bytes at once and parsing from memory is what makes the CSV loader fast (one
// read(2), no per-line stream overhead). Files whose name ends in ".gz" are decompressed on the
// fly with zlib, so large data sets can stay compressed on disk.
#pragma once

#include <filesystem>
#include <string>

namespace dpmcmc {

// The contents of `path` (decompressed when the name ends in ".gz").
// Throws NoInputError (66) when the file does not exist, is a directory or cannot be opened or
// read, naming the path and the system's reason; DataError (65) when a ".gz" file is not valid
// gzip data.
std::string read_file_bytes(const std::filesystem::path& path);

}  // namespace dpmcmc
