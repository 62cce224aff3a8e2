/*
 * tools/commands.h — the entry points of the `mtinject` commands, called by tools/main.c.
 *
 * Each takes the arguments after "mtinject" (argv[0] is the command's name, e.g. "run"),
 * parses them with getopt_long (resetting optind itself), answers --help, and returns the
 * process exit status (enum mtj_exit in tools/common.h, or a command's status for run).
 * They may be called in-process by another command (run calls decode).
 */
#ifndef MTJ_TOOLS_COMMANDS_H
#define MTJ_TOOLS_COMMANDS_H

int mtj_cmd_run(int argc, char **argv);       /* tools/cmd_run.c */
int mtj_cmd_info(int argc, char **argv);      /* tools/cmd_info.c */
int mtj_cmd_snapshot(int argc, char **argv);  /* tools/cmd_ctl.c */
int mtj_cmd_stop(int argc, char **argv);      /* tools/cmd_ctl.c */
int mtj_cmd_decode(int argc, char **argv);    /* tools/cmd_decode.c (decode helper) */
int mtj_cmd_symbols(int argc, char **argv);   /* tools/cmd_symbols.c (symbols helper) */

#endif
