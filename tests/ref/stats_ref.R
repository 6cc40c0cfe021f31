#!/usr/bin/Rscript
# SPDX-License-Identifier: GPL-2.0
#
# Reference values for tests/test_stats.c, computed with R.
#
# Run from the top of the checkout:  Rscript tests/ref/stats_ref.R
# (R 4.2.2 with jsonlite and rpact 3.3.4 from Debian 12: apt-get install
# r-base-core r-cran-rpact, when the values in the test were pasted).
# Every number printed here appears in tests/test_stats.c next to the
# test that checks it. Real samples are read from the captured runs in
# tests/data/report, "ok" cells only, as tests/ref/stats_ref.py does.
suppressMessages(library(jsonlite))

args <- commandArgs(trailingOnly = FALSE)
me <- sub("^--file=", "", args[grep("^--file=", args)])
data <- file.path(dirname(me), "..", "data", "report")

metric <- function(dir, path) {
	files <- sort(Sys.glob(file.path(data, dir, "cell.json")))
	vals <- c()
	for (f in files) {
		c <- fromJSON(f, simplifyVector = FALSE)
		if (c$outcome != "ok")
			next
		v <- c$metrics
		for (k in strsplit(path, ".", fixed = TRUE)[[1]]) {
			i <- suppressWarnings(as.integer(k))
			v <- if (!is.na(i)) v[[i + 1]] else v[[k]]
		}
		vals <- c(vals, as.numeric(v))
	}
	vals
}

ab_a <- "ab/cells/6.1_*"
ab_b <- "ab/cells/6.1-direct-writeback_*"
aa_a <- "aa/20261203-141600-381e/cells/*"
aa_b <- "aa/20261203-141602-388e/cells/*"
fio <- "fio.0.write.bw_kib_s"
psi <- "psi.memory.some.total_delta_us"

show <- function(label, ...)
	cat(label, ": ", paste(sprintf("%.17g", c(...)), collapse = ", "),
	    "\n", sep = "")

section <- function(name) cat("\n== ", name, "\n", sep = "")

# TOST: two one-sided Welch tests against -margin and +margin.
tost <- function(a, b, margin) {
	lo <- t.test(b, a, mu = -margin, alternative = "greater")
	hi <- t.test(b, a, mu = margin, alternative = "less")
	p <- max(lo$p.value, hi$p.value)
	stat <- if (lo$p.value >= hi$p.value) lo$statistic else hi$statistic
	c(p, stat)
}

section(paste("stats_tost: max of t.test(b, a, mu = -margin,",
	      "alternative = 'greater') and t.test(b, a, mu = margin,",
	      "alternative = 'less'); p, t of the larger"))
cases <- list(
	list("ab fio 10% of mean(a)", ab_a, ab_b, fio, NA, 10),
	list("ab fio margin 5000", ab_a, ab_b, fio, 5000, NA),
	list("aa fio 10% of mean(a)", aa_a, aa_b, fio, NA, 10),
	list("aa fio 30% of mean(a)", aa_a, aa_b, fio, NA, 30),
	list("aa psi 10% of mean(a)", aa_a, aa_b, psi, NA, 10),
	list("aa psi 50% of mean(a)", aa_a, aa_b, psi, NA, 50))
for (c in cases) {
	a <- metric(c[[2]], c[[4]])
	b <- metric(c[[3]], c[[4]])
	margin <- if (is.na(c[[5]])) c[[6]] / 100 * abs(mean(a)) else c[[5]]
	show(c[[1]], tost(a, b, margin))
}
# R's datasets::sleep, as in the ?t.test example.
s1 <- sleep$extra[sleep$group == 1]
s2 <- sleep$extra[sleep$group == 2]
show("sleep margin 2", tost(s1, s2, 2))
show("sleep margin 3", tost(s1, s2, 3))
show("sleep margin 4", tost(s1, s2, 4))

section(paste("stats_holm, stats_bh: p.adjust(p, 'holm' / 'BH');",
	      "stats_simes: min(sort(p) * m / (1:m)), capped at 1"))
simes <- function(p) {
	p <- sort(p[!is.na(p)])
	min(1, min(p * length(p) / seq_along(p)))
}
# Benjamini & Hochberg (1995)'s example; ties; a NA (no test) that
# p.adjust leaves out of n; one family of three rows that carry the same
# count (reclaim-wr-direct's Welch-on-log1p p three times) plus a fourth.
fams <- list(
	bh95 = c(0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298,
		 0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1),
	ties = c(0.01, 0.04, 0.03, 0.005, 0.2, 0.04),
	na = c(0.5, NA, 0.02, 0.9),
	same = c(0.00079613375910859258, 0.00079613375910859258,
		 0.00079613375910859258, 0.3))
for (nm in names(fams)) {
	p <- fams[[nm]]
	show(paste(nm, "holm"), p.adjust(p, "holm"))
	show(paste(nm, "BH"), p.adjust(p, "BH"))
	show(paste(nm, "simes"), simes(p))
}

section(paste("stats_mde_abs: the delta of Student's two-sample t-test",
	      "(pooled sd, df na + nb - 2) with power 0.8 at alpha 0.05:",
	      "power.t.test(n, sd, power, strict = TRUE)$delta for equal n, uniroot of the",
	      "noncentral t power otherwise"))
pooled_sd <- function(a, b)
	sqrt(((length(a) - 1) * var(a) + (length(b) - 1) * var(b)) /
	     (length(a) + length(b) - 2))
mde_abs <- function(sd, na, nb, alpha = 0.05, power = 0.8) {
	df <- na + nb - 2
	se <- sd * sqrt(1 / na + 1 / nb)
	q <- qt(1 - alpha / 2, df)
	f <- function(d) pt(q, df, ncp = d / se, lower.tail = FALSE) +
		pt(-q, df, ncp = d / se) - power
	uniroot(f, c(0, 20 * se), tol = 1e-12)$root
}
direct <- "vmscan_write_file_direct"
for (c in list(list("ab vmscan_write_file_direct", ab_a, ab_b, direct),
	       list("ab fio", ab_a, ab_b, fio),
	       list("aa fio", aa_a, aa_b, fio))) {
	a <- metric(c[[2]], c[[4]])
	b <- metric(c[[3]], c[[4]])
	sp <- pooled_sd(a, b)
	show(paste(c[[1]], "sd_a, sd_b, mde"), sd(a), sd(b),
	     mde_abs(sp, length(a), length(b)))
	if (length(a) == length(b))
		show("  power.t.test delta", power.t.test(n = length(a), sd = sp,
			power = 0.8, strict = TRUE, tol = 1e-12)$delta)
}
show("sd 1, n 3 v 9, mde", mde_abs(1, 3, 9))

section(paste("stats_gs_bounds: rpact getDesignGroupSequential(alpha = 0.05,",
	      "sided = 2, typeOfDesign = P / OF / asP / asOF)$criticalValues"))
suppressMessages(library(rpact))
designs <- c(P = "POCOCK", OF = "OBF", asP = "SPEND_POCOCK",
	     asOF = "SPEND_OBF")
looks <- list(eq2 = 1:2 / 2, eq3 = 1:3 / 3, eq4 = 1:4 / 4, eq5 = 1:5 / 5,
	      n3579 = c(3, 5, 7, 9) / 9)
for (ty in names(designs)) {
	for (lk in names(looks)) {
		t <- looks[[lk]]
		d <- getDesignGroupSequential(informationRates = t,
			alpha = 0.05, sided = 2, typeOfDesign = ty)
		show(paste(designs[[ty]], lk), d$criticalValues)
	}
}
