/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_CMDS_H
#define WBLAB_CMDS_H

/*
 * One file per subcommand, src/cmd/<name>.c. Each returns the process exit
 * status: 0 success, 1 failure, 2 bad usage or input.
 */
int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_parse_console(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_reparse(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_aa(int argc, char **argv);
int cmd_noise(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_cell_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_bisect_step(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_repro(int argc, char **argv);

#endif
