// Loading a numeric dataset from a NumPy .npy file (issue 28, "data at scale"): the binary
// format numpy.save writes (NEP 1, versions 1.0, 2.0 and 3.0), for data too large to go through
// CSV text. The array must be float64 ('<f8', little-endian), of shape (n, d) or (n,) (one
// column), in C (row-major) or Fortran (column-major) order. A Fortran-order file is read with one
// read straight into the dataset's column-major matrix; a C-order one is read in blocks of rows
// and scattered into the columns, so the peak memory is the matrix plus one block (≈ 1× the
// data), never two copies.
//
// The file has no column names: a preset's columns (CsvOptions::expected_columns) name them, in
// that order, and their number must equal d; without expected columns they are x1, …, xd.
//
// Refused with DataError (65), the message naming the file and what was expected: a bad magic
// string or version, a header that is not the dict numpy writes, a dtype other than '<f8' (with
// the numpy call that converts it), a shape of rank other than 1 or 2 or with no rows, a file
// shorter or longer than its header promises, and a non-finite value (its row and column). A file
// that does not exist or cannot be read gives NoInputError (66).
#pragma once

#include <filesystem>

#include "data/csv_loader.hpp"
#include "data/dataset.hpp"

namespace dpmcmc {

// Whether `path` names a .npy file (by its extension, case-insensitively).
bool is_npy_file(const std::filesystem::path& path);

Dataset load_npy(const std::filesystem::path& path, const CsvOptions& options = {});

}  // namespace dpmcmc
