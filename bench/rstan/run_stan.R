# Runs one Stan model on a dpmcmc CSV data file with rstan's NUTS (4 chains, 1000 + 1000
# iterations, adapt_delta 0.8: Stan's defaults, as dpmcmc's) and writes, per parameter, the
# posterior mean, sd, MCSE of the mean, bulk-ESS, and the wall time of the chains (warmup +
# sampling, summed over chains; compilation excluded).
# Usage: Rscript run_stan.R MODEL.stan DATA.csv PRESET SEED OUT.csv
suppressMessages(library(rstan))
# Debian's r-cran-bh is an empty shell over libboost-dev: point rstan at the system headers.
if (!nzchar(system.file("include", package = "BH"))) rstan_options(boost_lib = "/usr/include")
args <- commandArgs(trailingOnly = TRUE)
model_file <- args[1]; data_file <- args[2]; preset <- args[3]; seed <- as.integer(args[4])
out_file <- args[5]
rows <- read.csv(data_file, check.names = FALSE)
n <- nrow(rows)
data <- switch(preset,
  "banana-tempered-2d" = list(n = n, x = as.matrix(rows), a = 20, prior_sd = sqrt(1000),
                              lik_sd = sqrt(c(20, 2.5)), temperature = 1000 / n),
  "gauss-box-2d" = list(n = n, x = as.matrix(rows)),
  "bernoulli-beta" = list(n = n, y = as.integer(rows$y)),
  stop("unknown preset ", preset))
model <- stan_model(model_file)
fit <- sampling(model, data = data, chains = 4, iter = 2000, warmup = 1000, seed = seed,
                cores = 1, refresh = 0)
elapsed <- sum(get_elapsed_time(fit))
draws <- as.array(fit)
params <- setdiff(dimnames(draws)[[3]], "lp__")
out <- do.call(rbind, lapply(params, function(p) {
  x <- draws[, , p]
  data.frame(parameter = p, mean = mean(x), sd = sd(as.vector(x)),
             mcse_mean = sd(as.vector(x)) / sqrt(ess_bulk(x)), ess_bulk = ess_bulk(x),
             rhat = Rhat(x), seconds = elapsed)
}))
write.csv(out, out_file, row.names = FALSE)
