/* meta-data: the agent's table as OCF 1.0 XML (ra-api-1.dtd). */
#include <errno.h>
#include <string.h>

#include "ocf.h"

static const char *const type_names[] = {
	[OCF_STRING] = "string",
	[OCF_INTEGER] = "integer",
	[OCF_BOOLEAN] = "boolean",
	[OCF_TIME] = "time",
};

/* Text or attribute value with the five XML special characters escaped. */
static int put_escaped(struct cpha_buf *b, const char *s)
{
	const char *rep;
	size_t run;
	int r = 0;

	while (r == 0 && s && *s) {
		run = strcspn(s, "&<>\"'");
		r = cpha_buf_append(b, s, run);
		s += run;
		if (r < 0 || !*s)
			break;
		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		default:
			rep = "&apos;";
			break;
		}
		r = cpha_buf_puts(b, rep);
		s++;
	}
	return r;
}

static int put_desc(struct cpha_buf *b, const char *indent, const char *tag, const char *text)
{
	int r;

	r = cpha_buf_printf(b, "%s<%s lang=\"en\">", indent, tag);
	if (r == 0)
		r = put_escaped(b, text ? text : "");
	if (r == 0)
		r = cpha_buf_printf(b, "</%s>\n", tag);
	return r;
}

static int put_param(struct cpha_buf *b, const struct ocf_param *p)
{
	int r;

	r = cpha_buf_puts(b, "    <parameter name=\"");
	if (r == 0)
		r = put_escaped(b, p->name);
	if (r == 0)
		r = cpha_buf_printf(b, "\" unique=\"%d\" required=\"%d\">\n",
			(p->flags & OCF_P_UNIQUE) ? 1 : 0, (p->flags & OCF_P_REQUIRED) ? 1 : 0);
	if (r == 0)
		r = put_desc(b, "      ", "longdesc", p->longdesc ? p->longdesc : p->shortdesc);
	if (r == 0)
		r = put_desc(b, "      ", "shortdesc", p->shortdesc);
	if (r == 0)
		r = cpha_buf_printf(b, "      <content type=\"%s\"", type_names[p->type]);
	if (r == 0 && p->def) {
		r = cpha_buf_puts(b, " default=\"");
		if (r == 0)
			r = put_escaped(b, p->def);
		if (r == 0)
			r = cpha_buf_puts(b, "\"");
	}
	if (r == 0)
		r = cpha_buf_puts(b, "/>\n    </parameter>\n");
	return r;
}

static int put_action(struct cpha_buf *b, const struct ocf_action *act)
{
	int r;

	r = cpha_buf_printf(
		b, "    <action name=\"%s\" timeout=\"%us\"", act->name, act->timeout_s);
	if (r == 0 && act->interval_s)
		r = cpha_buf_printf(b, " interval=\"%us\"", act->interval_s);
	if (r == 0 && strcmp(act->name, "monitor") == 0)
		r = cpha_buf_puts(b, " depth=\"0\"");
	if (r == 0)
		r = cpha_buf_puts(b, "/>\n");
	return r;
}

int ocf_meta_render(const struct ocf_agent *a, struct cpha_buf *out)
{
	const struct ocf_action *act;
	const struct ocf_param *p;
	int r;

	r = cpha_buf_puts(out, "<?xml version=\"1.0\"?>\n"
			       "<!DOCTYPE resource-agent SYSTEM \"ra-api-1.dtd\">\n"
			       "<resource-agent name=\"");
	if (r == 0)
		r = put_escaped(out, a->name);
	if (r == 0)
		r = cpha_buf_puts(out, "\" version=\"");
	if (r == 0)
		r = put_escaped(out, a->version);
	/* <version> is the OCF API version: 1.0 keeps Pacemaker's legacy reload
	 * (a change of non-unique parameters only calls "reload") and keeps the
	 * document valid against ra-api-1.dtd, which ocf-tester checks. */
	if (r == 0)
		r = cpha_buf_puts(out, "\">\n  <version>1.0</version>\n");
	if (r == 0)
		r = put_desc(out, "  ", "longdesc", a->longdesc);
	if (r == 0)
		r = put_desc(out, "  ", "shortdesc", a->shortdesc);
	if (r == 0)
		r = cpha_buf_puts(out, "  <parameters>\n");
	for (p = a->params; r == 0 && p && p->name; p++)
		r = put_param(out, p);
	if (r == 0)
		r = cpha_buf_puts(out, "  </parameters>\n  <actions>\n");
	for (act = a->actions; r == 0 && act->name; act++)
		r = put_action(out, act);
	if (r == 0)
		r = cpha_buf_puts(out, "    <action name=\"meta-data\" timeout=\"5s\"/>\n"
				       "  </actions>\n</resource-agent>\n");
	return r < 0 ? -ENOMEM : 0;
}
