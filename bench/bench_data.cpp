// Data loading throughput (issue 28, "data at scale"), bytes/s of the file read:
//   CsvLoad        load_csv of an n × d file of random doubles written with 17 significant digits
//   NpyLoadC       load_npy of the same values as a C-order (row-major) float64 .npy
//   NpyLoadF       the same, Fortran order (column-major: one read into the matrix)
//   ReadBytes      read_file_bytes of the CSV file: the cost of reading it at all (the baseline)
// Arguments: n, d. The files are written once to the temporary directory and read from the page
// cache (warm), so the figures are parsing speed, not disk speed.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "data/csv_loader.hpp"
#include "data/file_bytes.hpp"
#include "data/npy_reader.hpp"

namespace dpmcmc {
namespace {

struct Files {
  std::filesystem::path csv, npy_c, npy_f;
};

void write_npy(const std::filesystem::path& file, const std::vector<double>& values, bool fortran,
               std::size_t n, std::size_t d) {
  std::string header =
      "{'descr': '<f8', 'fortran_order': " + std::string(fortran ? "True" : "False") +
      ", 'shape': (" + std::to_string(n) + ", " + std::to_string(d) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(file, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(double)));
}

const Files& files(std::size_t n, std::size_t d) {
  static std::map<std::pair<std::size_t, std::size_t>, Files> cache;
  auto it = cache.find({n, d});
  if (it != cache.end()) return it->second;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem = "dpmcmc-bench-data-" + std::to_string(n) + "x" + std::to_string(d);
  Files f{dir / (stem + ".csv"), dir / (stem + "-c.npy"), dir / (stem + "-f.npy")};
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal(0.0, 3.0);
  std::vector<double> rows(n * d), cols(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) rows[i * d + j] = cols[j * n + i] = normal(rng);
  {
    std::FILE* out = std::fopen(f.csv.c_str(), "w");
    for (std::size_t j = 0; j < d; ++j) std::fprintf(out, "%sx%zu", j ? "," : "", j + 1);
    std::fputc('\n', out);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j)
        std::fprintf(out, "%.17g%c", rows[i * d + j], j + 1 == d ? '\n' : ',');
    std::fclose(out);
  }
  write_npy(f.npy_c, rows, false, n, d);
  write_npy(f.npy_f, cols, true, n, d);
  return cache.emplace(std::make_pair(n, d), f).first->second;
}

template <class Load>
void run(benchmark::State& state, const std::filesystem::path& file, Load load) {
  const auto bytes = static_cast<std::int64_t>(std::filesystem::file_size(file));
  for (auto _ : state) benchmark::DoNotOptimize(load(file));
  state.SetBytesProcessed(state.iterations() * bytes);
}

const Files& files_of(const benchmark::State& state) {
  return files(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
}

void BM_CsvLoad(benchmark::State& state) {
  run(state, files_of(state).csv, [](const auto& p) { return load_csv(p); });
}
void BM_NpyLoadC(benchmark::State& state) {
  run(state, files_of(state).npy_c, [](const auto& p) { return load_npy(p); });
}
void BM_NpyLoadF(benchmark::State& state) {
  run(state, files_of(state).npy_f, [](const auto& p) { return load_npy(p); });
}
void BM_ReadBytes(benchmark::State& state) {
  run(state, files_of(state).csv, [](const auto& p) { return read_file_bytes(p); });
}

BENCHMARK(BM_CsvLoad)->Args({1000000, 2})->Args({200000, 10})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NpyLoadC)->Args({1000000, 2})->Args({200000, 10})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NpyLoadF)->Args({1000000, 2})->Args({200000, 10})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadBytes)->Args({1000000, 2})->Args({200000, 10})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dpmcmc

BENCHMARK_MAIN();
