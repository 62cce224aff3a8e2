/*
 * tools/main.c — `mtinject COMMAND [ARGS]`: find the command and hand it the arguments.
 */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/common.h"

struct command {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "run",      "run a program with the preload, then decode its snapshots", mtj_cmd_run },
	{ "decode",   "turn perf.data snapshots into traces (JSON, FXT, folded stacks)", mtj_cmd_decode },
	{ "symbols",  "list the functions a trigger can name, or resolve one", mtj_cmd_symbols },
	{ "info",     "what this machine supports and what mtinject will do", mtj_cmd_info },
	{ "snapshot", "ask a running traced process for a snapshot now", mtj_cmd_snapshot },
	{ "stop",     "stop tracing in a running traced process", mtj_cmd_stop },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fprintf(f, "Usage: mtinject COMMAND [ARGS]\n"
		   "       mtinject help COMMAND | --help | --version\n\n"
		   "Snapshots of what a program did just before a trigger fired.\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-9s %s\n", "help", "show the help of a command");
	fprintf(f, "\nExample:\n"
		   "  mtinject run -t parse_request -- ./server --port 8080\n\n"
		   "%s\nSee mtinject(1) and `mtinject COMMAND --help`.\n", mtj_tool_exit_help);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int unknown(const char *name)
{
	const char *names[NCOMMANDS + 1];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = "help";
	const char *near = mtj_closest(name, names, NCOMMANDS + 1);
	if (near)
		mtj_tool_err(NULL, "'%s' is not a command (did you mean '%s'?)", name, near);
	else
		mtj_tool_err(NULL, "'%s' is not a command", name);
	fprintf(stderr, "Try 'mtinject --help'.\n");
	return MTJ_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return MTJ_EXIT_USAGE;
	}
	const char *first = argv[1];
	if (!strcmp(first, "--help") || !strcmp(first, "-h")) {
		usage(stdout);
		return MTJ_EXIT_OK;
	}
	if (!strcmp(first, "--version") || !strcmp(first, "-V")) {
		printf("mtinject %s\n", MTINJECT_VERSION);
		return MTJ_EXIT_OK;
	}
	if (!strcmp(first, "help")) {
		if (argc == 2 || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h") || !strcmp(argv[2], "help")) {
			usage(stdout);
			return MTJ_EXIT_OK;
		}
		const struct command *c = find(argv[2]);
		if (!c)
			return unknown(argv[2]);
		char help[] = "--help";
		char *hargv[] = { argv[2], help, NULL };
		return c->fn(2, hargv);
	}
	if (first[0] == '-') {
		mtj_tool_err(NULL, "unknown option '%s' (options go after the command)", first);
		fprintf(stderr, "Try 'mtinject --help'.\n");
		return MTJ_EXIT_USAGE;
	}
	const struct command *c = find(first);
	if (!c)
		return unknown(first);
	return c->fn(argc - 1, argv + 1);
}
