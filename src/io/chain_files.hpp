// The chain files of a run: `dpmcmc sample` writes one Stan CSV per chain, DIR/chain-K.csv
// (K = 1, 2, …; chain-K.csv.part while the chain runs). `summary` and `plot` accept DIR for them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace dpmcmc {

// K when `name` is "chain-K.csv" (K decimal digits), else nothing.
std::optional<std::size_t> chain_file_number(std::string_view name);

// `run` itself when it is not a directory; else its chain-K.csv files in the order of K (chain-10
// after chain-9). NoInputError naming the directory when it holds none (and saying so when it
// holds only chain-K.csv.part files: a run still going, or stopped).
std::vector<std::filesystem::path> run_chain_files(const std::filesystem::path& run);

}  // namespace dpmcmc
