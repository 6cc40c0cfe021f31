# Reference values for tests/test_util.c (dvec_nearest_rank): R's
# quantile type 1 is the nearest-rank percentile (the inverse of the
# empirical distribution function), the rule of cell.json's p50/p95.
# Run: Rscript tests/ref/nearest-rank.R
x <- c(15, 20, 35, 40, 50)
print(quantile(x, c(0.05, 0.3, 0.4, 0.5, 1), type = 1))
#   5%  30%  40%  50% 100%
#   15   20   20   35   50
y <- c(3, 6, 7, 8, 8, 10, 13, 15, 16, 20)
print(quantile(y, c(0.25, 0.5, 0.75, 0.95, 1), type = 1))
#  25%  50%  75%  95% 100%
#    7    8   15   20   20
