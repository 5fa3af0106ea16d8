// Entry point of the dpmcmc command: all work is in cli/.
#include "cli/app.hpp"

int main(int argc, char** argv) {
  return dpmcmc::cli::run(argc, argv);
}
