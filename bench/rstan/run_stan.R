# Runs one Stan model on a dpmcmc CSV data file with rstan's NUTS (4 chains, 1000 warmup
# iterations, then ITER draws per chain at adapt_delta TARGET: the options dpmcmc's NUTS runs the
# preset with, Stan's defaults 1000 and 0.8 unless the preset recommends others) and writes each
# chain's draws to OUT-chain-K.csv and the chains' wall time (warmup + sampling, summed over
# chains; compilation excluded) to OUT-seconds.txt.
# Usage: Rscript run_stan.R MODEL.stan DATA.csv PRESET SEED OUT ITER TARGET
suppressMessages(library(rstan))
# Debian's r-cran-bh is an empty shell over libboost-dev: point rstan at the system headers.
if (!nzchar(system.file("include", package = "BH"))) rstan_options(boost_lib = "/usr/include")
args <- commandArgs(trailingOnly = TRUE)
model_file <- args[1]; data_file <- args[2]; preset <- args[3]; seed <- as.integer(args[4])
out_prefix <- args[5]
iter <- as.integer(args[6]); target <- as.numeric(args[7])
rows <- read.csv(data_file, check.names = FALSE)
n <- nrow(rows)
data <- switch(preset,
  "banana-tempered-2d" = list(n = n, x = as.matrix(rows), a = 20, prior_sd = sqrt(1000),
                              lik_sd = sqrt(c(20, 2.5)), temperature = 1000 / n),
  "gauss-box-2d" = list(n = n, x = as.matrix(rows)),
  "bernoulli-beta" = list(n = n, y = as.integer(rows$y)),
  "logistic-fashion-mnist" = list(n = n, d = ncol(rows) - 1, x = as.matrix(rows[, names(rows) != "y"]),
                                  y = as.integer(rows$y), prior_sd = 10),
  stop("unknown preset ", preset))
model <- stan_model(model_file)
fit <- sampling(model, data = data, chains = 4, iter = 1000 + iter, warmup = 1000, seed = seed,
                cores = 1, refresh = 0, control = list(adapt_delta = target))
elapsed <- sum(get_elapsed_time(fit))
# One CSV per chain, parameters named as dpmcmc names them (theta[1] -> theta.1), so that
# `dpmcmc summary` computes both fits' means, sds and their MCSEs with one estimator.
draws <- as.array(fit)
names <- gsub("]", "", gsub("[", ".", dimnames(draws)[[3]], fixed = TRUE), fixed = TRUE)
for (chain in seq_len(dim(draws)[2])) {
  one <- draws[, chain, ]
  colnames(one) <- names
  write.csv(one, sprintf("%s-chain-%d.csv", out_prefix, chain), row.names = FALSE, quote = FALSE)
}
writeLines(format(elapsed, digits = 10), paste0(out_prefix, "-seconds.txt"))
