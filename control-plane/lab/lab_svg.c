/* cpha lab report: timeline.svg, requests ok and failed per second, one
 * lane per run; valid attempts marked by their edges, the others by a
 * hatched band. Pure. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "lab_render.h"
#include "lab_repeat.h"
#include "lab_stats.h"

#define SVG_LEFT    70 /* room for the y axis labels */
#define SVG_RIGHT   20
#define SVG_PLOT_W  1000  /* width of a lane's plot area */
#define SVG_LANE_H  220   /* a lane, title and axis labels included */
#define SVG_PLOT_H  140   /* height of a lane's plot area */
#define SVG_TOP     40    /* the title */
#define SVG_MAXBINS 86400 /* a day of 1 s bins; longer runs are cut */

static void xml_text(struct cpha_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			cpha_buf_puts(b, "&lt;");
			break;
		case '>':
			cpha_buf_puts(b, "&gt;");
			break;
		case '&':
			cpha_buf_puts(b, "&amp;");
			break;
		case '"':
			cpha_buf_puts(b, "&quot;");
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
				cpha_buf_append(b, s, 1);
		}
	}
}

/* A tick step of 1, 2 or 5 times a power of ten giving at most ~n ticks. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw > 0 ? raw : 1)));

	if (raw <= p)
		return p;
	if (raw <= 2 * p)
		return 2 * p;
	if (raw <= 5 * p)
		return 5 * p;
	return 10 * p;
}

/* Open the label of the span [xs, xe]: from its left edge, or ending at
 * its right edge near the lane's right end, so that it stays in view. */
static void svg_label(struct cpha_buf *b, double xs, double xe, int y, const char *cls)
{
	if (xs > SVG_LEFT + SVG_PLOT_W - 160)
		cpha_buf_printf(b, "<text x=\"%.2f\" y=\"%d\" class=\"%s\" text-anchor=\"end\">",
			xe - 2, y, cls);
	else
		cpha_buf_printf(b, "<text x=\"%.2f\" y=\"%d\" class=\"%s\">", xs + 2, y, cls);
}

static void svg_lane(struct cpha_buf *b, const struct lab_run *r, int top)
{
	const struct lab_events *e = &r->ev;
	double t0 = lab_events_t0(e), t1 = t0, span, bw, step;
	long *ok = NULL, *bad = NULL, ymax = 1;
	size_t nbins;
	int py = top + 30; /* top of the plot area */

	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].t > t1)
			t1 = e->v[i].t;
	/* the attempts are drawn even where the prober wrote nothing (one that
	 * never started, after the last event) */
	for (size_t j = 0; j < r->nscen; j++) {
		if (!e->n && j == 0)
			t0 = t1 = r->scen[j].start;
		if (r->scen[j].start < t0)
			t0 = r->scen[j].start;
		if (r->scen[j].end > t1)
			t1 = r->scen[j].end;
	}
	nbins = (size_t)ceil(t1 - t0) + 1;
	if (nbins > SVG_MAXBINS)
		nbins = SVG_MAXBINS;
	span = (double)nbins;
	bw = (double)SVG_PLOT_W / span;
	ok = calloc(nbins, sizeof(*ok));
	bad = calloc(nbins, sizeof(*bad));
	if (!ok || !bad)
		goto out;
	for (size_t i = 0; i < e->n; i++) {
		size_t k;

		if (e->v[i].kind != LAB_EV_REQ)
			continue;
		k = (size_t)floor(e->v[i].t - t0);
		if (k >= nbins)
			continue;
		if (e->v[i].ok)
			ok[k] += e->v[i].n;
		else
			bad[k] += e->v[i].n;
	}
	for (size_t k = 0; k < nbins; k++)
		if (ok[k] + bad[k] > ymax)
			ymax = ok[k] + bad[k];

	cpha_buf_printf(b, "<g class=\"lane\">\n<text x=\"%d\" y=\"%d\" class=\"lane-title\">",
		SVG_LEFT, top + 18);
	xml_text(b, r->stack);
	cpha_buf_printf(b, " (%zu s)</text>\n", nbins);
	cpha_buf_printf(b,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n",
		SVG_LEFT, py, SVG_PLOT_W, SVG_PLOT_H);
	for (size_t k = 0; k < nbins; k++) {
		double x = SVG_LEFT + (double)k * bw;
		double hok = (double)ok[k] * SVG_PLOT_H / (double)ymax;
		double hbad = (double)bad[k] * SVG_PLOT_H / (double)ymax;

		if (ok[k])
			cpha_buf_printf(b,
				"<rect class=\"ok\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\"/>\n",
				x, py + SVG_PLOT_H - hok, bw, hok);
		if (bad[k])
			cpha_buf_printf(b,
				"<rect class=\"failed\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\"/>\n",
				x, py + SVG_PLOT_H - hok - hbad, bw, hbad);
	}
	/* axes: seconds below, requests per second on the left */
	step = nice_step(span, 10);
	for (double s = 0; s <= span; s += step)
		cpha_buf_printf(b,
			"<text x=\"%.2f\" y=\"%d\" class=\"tick\" "
			"text-anchor=\"middle\">%.0f</text>\n",
			SVG_LEFT + s * bw, py + SVG_PLOT_H + 14, s);
	cpha_buf_printf(b,
		"<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\">time (s)</text>\n",
		SVG_LEFT + SVG_PLOT_W / 2, py + SVG_PLOT_H + 30);
	cpha_buf_printf(b,
		"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">%ld</text>\n"
		"<text x=\"%d\" y=\"%d\" class=\"tick\" text-anchor=\"end\">0</text>\n",
		SVG_LEFT - 4, py + 10, ymax, SVG_LEFT - 4, py + SVG_PLOT_H);
	cpha_buf_printf(b,
		"<text x=\"%d\" y=\"%d\" class=\"axis\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 %d %d)\">requests/s</text>\n",
		SVG_LEFT - 40, py + SVG_PLOT_H / 2, SVG_LEFT - 40, py + SVG_PLOT_H / 2);
	for (size_t j = 0; j < r->nscen; j++) {
		const struct lab_scenario *s = &r->scen[j];
		double xs = SVG_LEFT + (s->start - t0) * bw, xe = SVG_LEFT + (s->end - t0) * bw;
		int ty = py + 10 + (int)(j % 3) * 11;

		if (xs < SVG_LEFT)
			xs = SVG_LEFT;
		if (xe > SVG_LEFT + SVG_PLOT_W)
			xe = SVG_LEFT + SVG_PLOT_W;
		if (xe < xs)
			continue; /* outside the run's events */
		if (!lab_repeat_valid(s)) {
			/* an attempt that does not count: a band, seen even when it
			 * never started (start == end) */
			if (xe - xs < 2)
				xe = xs + 2;
			cpha_buf_printf(b,
				"<rect class=\"invalid\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
				"height=\"%d\" fill=\"url(#invalid)\"/>\n",
				xs, py, xe - xs, SVG_PLOT_H);
			svg_label(
				b, xs, xe, py + SVG_PLOT_H - 4 - (int)(j % 3) * 11, "invalid-name");
			xml_text(b, s->name);
			cpha_buf_printf(b, " #%d %s</text>\n", lab_repeat_round(r, j),
				s->not_started ? "not started" : "invalid");
			continue;
		}
		cpha_buf_printf(b,
			"<line class=\"scenario\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n"
			"<line class=\"scenario\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n",
			xs, py, xs, py + SVG_PLOT_H, xe, py, xe, py + SVG_PLOT_H);
		svg_label(b, xs, xe, ty, "scenario-name");
		xml_text(b, s->name);
		if (lab_repeat_count(r, s->name, NULL) > 1)
			cpha_buf_printf(b, " #%d", lab_repeat_round(r, j));
		cpha_buf_puts(b, "</text>\n");
	}
	cpha_buf_puts(b, "</g>\n");
out:
	free(ok);
	free(bad);
}

int lab_render_svg(const struct lab_model *m, struct cpha_buf *out)
{
	struct cpha_buf b = { 0 };
	int w = SVG_LEFT + SVG_PLOT_W + SVG_RIGHT;
	int h = SVG_TOP + (int)(m->nruns ? m->nruns : 1) * SVG_LANE_H;
	int rc;

	cpha_buf_printf(&b,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
		w, h, w, h);
	cpha_buf_puts(&b,
		"<style>.ok{fill:#4a9a4a}.failed{fill:#d03030}"
		".scenario{stroke:#3050c0;stroke-dasharray:4 3}"
		".scenario-name{fill:#3050c0}.lane-title{font-size:13px;font-weight:bold}"
		".tick{fill:#444}.axis{fill:#222}"
		".invalid{stroke:#888;fill-opacity:0.6}.invalid-name{fill:#555}</style>\n");
	/* invalid attempts: grey, hatched */
	cpha_buf_puts(&b, "<defs><pattern id=\"invalid\" width=\"6\" height=\"6\" "
			  "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
			  "<rect width=\"6\" height=\"6\" fill=\"#ddd\"/>"
			  "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999\" "
			  "stroke-width=\"2\"/></pattern></defs>\n");
	cpha_buf_printf(&b,
		"<text x=\"%d\" y=\"20\" font-size=\"15\">cpha lab: requests per second "
		"(green ok, red failed; hatched: attempts that do not count)</text>\n",
		SVG_LEFT);
	for (size_t i = 0; i < m->nruns; i++)
		svg_lane(&b, &m->runs[i], SVG_TOP + (int)i * SVG_LANE_H);
	if (!m->nruns)
		cpha_buf_printf(
			&b, "<text x=\"%d\" y=\"%d\">no runs</text>\n", SVG_LEFT, SVG_TOP + 20);
	cpha_buf_puts(&b, "</svg>\n");
	if (!b.data) {
		cpha_buf_free(&b);
		return -ENOMEM;
	}
	rc = cpha_buf_append(out, b.data, b.len);
	cpha_buf_free(&b);
	return rc;
}
