// gauss-box-2d: x_i ~ N(theta, I_2), theta ~ N(0, 10^2 I).
data {
  int<lower=1> n;
  matrix[n, 2] x;
}
parameters {
  vector[2] theta;
}
model {
  theta ~ normal(0, 10);
  col(x, 1) ~ normal(theta[1], 1);
  col(x, 2) ~ normal(theta[2], 1);
}
