/*
 * tools/cmd_decode.c — `mtinject decode`: perf.data snapshots -> traces.
 *
 * Option parsing fills struct mtj_decode_opts (decode/decode.h); everything else is the
 * driver's.  To add an option: a row in long_opts, a case in parse(), a line in the help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/decode.h"
#include "decode/filter.h"
#include "tools/commands.h"
#include "tools/common.h"

#define CMD "decode"

static const char usage_text[] =
	"usage: mtinject decode INPUT... [-o OUT] [--format json|fxt|folded] [--snapshot N|all] [--quiet]\n"
	"       mtinject decode --from-perf-script FILE|- [-o OUT] [--format ...] [--filter START,STOP]\n"
	"\n"
	"Turn perf.data snapshots into traces.  INPUT is an output directory of mtinject\n"
	"(perf.data.<timestamp> snapshots, hits.jsonl) or a perf.data file.\n"
	"\n"
	"  -o, --output OUT     where to write (default: DIR/trace.json, or DIR/trace-<N>.json per\n"
	"                       snapshot when a directory holds several; FILE.json for a file).\n"
	"                       With several snapshots, OUT gets -<N> before its extension.\n"
	"                       - = standard output (one snapshot; the summary goes to stderr)\n"
	"  -f, --format FMT     json (Chrome trace events: Perfetto, chrome://tracing), fxt (Fuchsia\n"
	"                       trace format: Perfetto) or folded (flamegraph.pl, speedscope);\n"
	"                       default: from OUT's extension, else json\n"
	"  -s, --snapshot N|all decode only the N-th snapshot (1 = oldest) or all (default)\n"
	"      --from-perf-script FILE|-\n"
	"                       read `perf script` text (from any machine; - = stdin) instead of\n"
	"                       perf.data: Intel PT branches (perf script --itrace=bep -F pid,tid,\n"
	"                       time,flags,ip,addr,sym,symoff,dso) or samples with call chains\n"
	"      --filter START,STOP\n"
	"                       keep only the time between a call of START and the next call of\n"
	"                       STOP (any thread)\n"
	"  -q, --quiet          print nothing but errors\n"
	"  -h, --help           this text\n"
	"\n"
	"Hits recorded in DIR/hits.jsonl appear as instant events in the trace of the snapshot they\n"
	"triggered (or of every snapshot whose time range covers them).\n";

static const struct option long_opts[] = {
	{ "output",   required_argument, NULL, 'o' },
	{ "format",   required_argument, NULL, 'f' },
	{ "snapshot", required_argument, NULL, 's' },
	{ "quiet",    no_argument,       NULL, 'q' },
	{ "from-perf-script", required_argument, NULL, 'P' },
	{ "filter",   required_argument, NULL, 'F' },
	{ "help",     no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct mtj_decode_opts o;
	bool quiet;
	unsigned outputs;
	char *filter_start, *filter_stop;    /* owned copies for c->o */
};

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct cli *c)
{
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:f:s:qh", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			c->o.output = optarg;
			break;
		case 'f':
			if (mtj_format_from_name(optarg, &c->o.format) < 0) {
				mtj_tool_err(CMD, "--format '%s': unknown format (json, fxt or folded)", optarg);
				return MTJ_EXIT_USAGE;
			}
			c->o.format_set = true;
			break;
		case 's': {
			char *end;

			if (!strcmp(optarg, "all")) {
				c->o.snapshot = 0;
				break;
			}
			errno = 0;
			c->o.snapshot = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || c->o.snapshot == 0 || optarg[0] == '-') {
				mtj_tool_err(CMD, "--snapshot '%s': expected a number from 1 (the oldest) or 'all'",
					     optarg);
				return MTJ_EXIT_USAGE;
			}
			break;
		}
		case 'q':
			c->quiet = true;
			break;
		case 'P':
			c->o.from_perf_script = optarg;
			break;
		case 'F': {
			char ferr[200];

			free(c->filter_start);
			free(c->filter_stop);
			if (mtj_filter_parse_spec(optarg, &c->filter_start, &c->filter_stop, ferr,
						  sizeof(ferr)) < 0) {
				c->filter_start = c->filter_stop = NULL;
				mtj_tool_err(CMD, "%s", ferr);
				return MTJ_EXIT_USAGE;
			}
			c->o.filter_start = c->filter_start;
			c->o.filter_stop = c->filter_stop;
			break;
		}
		case 'h':
			fputs(usage_text, stdout);
			fputs(mtj_tool_exit_help, stdout);
			return MTJ_EXIT_OK;
		default:
			return mtj_tool_option_error(CMD, ch, long_opts, argv);
		}
	}
	if (optind >= argc && !c->o.from_perf_script) {
		mtj_tool_err(CMD, "no INPUT given (an mtinject output directory or a perf.data file)");
		fputs(usage_text, stderr);
		return MTJ_EXIT_USAGE;
	}
	c->o.inputs = (const char *const *)&argv[optind];
	c->o.ninputs = (size_t)(argc - optind);
	return -1;
}

static const char *viewer_hint(enum mtj_format f)
{
	switch (f) {
	case MTJ_FORMAT_FXT:
		return "open it in the Perfetto UI: https://ui.perfetto.dev (Open trace file)";
	case MTJ_FORMAT_FOLDED:
		return "open it in https://www.speedscope.app or run: flamegraph.pl FILE > flame.svg";
	default:
		return "open it in the Perfetto UI: https://ui.perfetto.dev (Open trace file), or chrome://tracing";
	}
}

static void on_output(void *arg, const struct mtj_decode_output *out)
{
	struct cli *c = arg;
	bool to_stdout = !strcmp(out->path, "-");
	FILE *f = to_stdout ? stderr : stdout;   /* never into the trace itself */

	c->outputs++;
	if (c->quiet)
		return;
	fprintf(f, "trace: %s (%llu samples, %llu threads, %llu hits, %llu events, %.2f s)\n",
		to_stdout ? "<stdout>" : out->path, (unsigned long long)out->samples,
		(unsigned long long)out->threads, (unsigned long long)out->hits,
		(unsigned long long)out->events, out->seconds);
	if (!to_stdout)
		fprintf(f, "  %s\n", viewer_hint(out->format));
	fflush(f);
}

static void on_warn(void *arg, const char *msg)
{
	struct cli *c = arg;

	if (!c->quiet)
		mtj_tool_err(CMD, "warning: %s", msg);
}

int mtj_cmd_decode(int argc, char **argv)
{
	struct cli c = { 0 };
	char err[1024] = "";
	int ret = parse(argc, argv, &c);

	if (ret >= 0) {
		free(c.filter_start);
		free(c.filter_stop);
		return ret;
	}
	c.o.dlfilter = mtj_tool_dlfilter_path();
	c.o.progress = !c.quiet && isatty(STDERR_FILENO);
	c.o.warn = on_warn;
	c.o.warn_arg = &c;
	ret = mtj_decode_run(&c.o, on_output, &c, err, sizeof(err));
	free(c.filter_start);
	free(c.filter_stop);
	if (ret < 0)
		mtj_tool_err(CMD, "%s", err);
	switch (ret) {
	case MTJ_DECODE_OK:       return MTJ_EXIT_OK;
	case MTJ_DECODE_EUSAGE:   return MTJ_EXIT_USAGE;
	case MTJ_DECODE_ENOINPUT: return MTJ_EXIT_NOTFOUND;
	default:                  return MTJ_EXIT_FAIL;
	}
}
