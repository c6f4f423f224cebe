<?xml version="1.0"?>
<!-- ra2man.xsl: an OCF resource agent's meta-data (OCF RA API 1.0,
     ra-api-1.dtd: what "AGENT meta-data" prints) as a man page of section 7,
     ocf_PROVIDER_NAME.7, the name resource-agents gives its own pages.

     xsltproc -novalid -stringparam ocfdir /usr/lib/ocf/resource.d/cpha \
              -stringparam agents "etcd lbd ..." -stringparam pages pages.xml \
              ra2man.xsl etcd.xml > ocf_cpha_etcd.7

     Everything about the agent (names, types, defaults, flags, texts,
     timeouts) comes from the meta-data, so the page says what the agent
     does. pages.xml adds what the meta-data cannot hold: an example command
     and agent-specific SEE ALSO entries; the example is checked against the
     meta-data here (a parameter the agent lacks, or a required one left out,
     stops the build).

     Text is escaped for roff (groff_man(7)): a backslash is \e, a hyphen \-
     (so options copy as ASCII), an apostrophe \(aq, a grave accent \(ga,
     ^ and ~ \(ha and \(ti; a line never begins with a control character;
     macro arguments also get \(dq for a double quote. Paragraphs of a
     description are its lines; blanks inside a line are collapsed. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
	<xsl:output method="text" encoding="UTF-8"/>
	<xsl:strip-space elements="*"/>

	<!-- The provider (ocf:PROVIDER:NAME and the page's name). -->
	<xsl:param name="provider" select="'cpha'"/>
	<!-- Where the agents are installed. -->
	<xsl:param name="ocfdir" select="concat('/usr/lib/ocf/resource.d/', $provider)"/>
	<!-- Every agent of the provider, separated by blanks (SEE ALSO). -->
	<xsl:param name="agents" select="''"/>
	<!-- The page's date (.TH); empty: none. -->
	<xsl:param name="date" select="''"/>
	<!-- Examples and SEE ALSO entries per agent; empty: none. -->
	<xsl:param name="pages" select="''"/>

	<xsl:variable name="nl" select="'&#10;'"/>
	<xsl:variable name="ra" select="/resource-agent"/>
	<xsl:variable name="name" select="string($ra/@name)"/>
	<xsl:variable name="page" select="concat('ocf_', $provider, '_', $name)"/>
	<xsl:variable name="extra" select="document($pages)/pages/page[@agent = $name]"/>

	<!-- s with every occurrence of from replaced by to. -->
	<xsl:template name="replace">
		<xsl:param name="s"/>
		<xsl:param name="from"/>
		<xsl:param name="to"/>
		<xsl:choose>
			<xsl:when test="contains($s, $from)">
				<xsl:value-of select="concat(substring-before($s, $from), $to)"/>
				<xsl:call-template name="replace">
					<xsl:with-param name="s" select="substring-after($s, $from)"/>
					<xsl:with-param name="from" select="$from"/>
					<xsl:with-param name="to" select="$to"/>
				</xsl:call-template>
			</xsl:when>
			<xsl:otherwise>
				<xsl:value-of select="$s"/>
			</xsl:otherwise>
		</xsl:choose>
	</xsl:template>

	<!-- s escaped for a roff text line or inside a font escape: the
	     backslash first, since the others add backslashes. -->
	<xsl:template name="esc">
		<xsl:param name="s"/>
		<xsl:variable name="s1">
			<xsl:call-template name="replace">
				<xsl:with-param name="s" select="$s"/>
				<xsl:with-param name="from" select="'\'"/>
				<xsl:with-param name="to" select="'\e'"/>
			</xsl:call-template>
		</xsl:variable>
		<xsl:variable name="s2">
			<xsl:call-template name="replace">
				<xsl:with-param name="s" select="$s1"/>
				<xsl:with-param name="from" select="'-'"/>
				<xsl:with-param name="to" select="'\-'"/>
			</xsl:call-template>
		</xsl:variable>
		<xsl:variable name="s3">
			<xsl:call-template name="replace">
				<xsl:with-param name="s" select="$s2"/>
				<xsl:with-param name="from">'</xsl:with-param>
				<xsl:with-param name="to" select="'\(aq'"/>
			</xsl:call-template>
		</xsl:variable>
		<xsl:variable name="s4">
			<xsl:call-template name="replace">
				<xsl:with-param name="s" select="$s3"/>
				<xsl:with-param name="from" select="'`'"/>
				<xsl:with-param name="to" select="'\(ga'"/>
			</xsl:call-template>
		</xsl:variable>
		<xsl:variable name="s5">
			<xsl:call-template name="replace">
				<xsl:with-param name="s" select="$s4"/>
				<xsl:with-param name="from" select="'^'"/>
				<xsl:with-param name="to" select="'\(ha'"/>
			</xsl:call-template>
		</xsl:variable>
		<xsl:call-template name="replace">
			<xsl:with-param name="s" select="$s5"/>
			<xsl:with-param name="from" select="'~'"/>
			<xsl:with-param name="to" select="'\(ti'"/>
		</xsl:call-template>
	</xsl:template>

	<!-- s escaped as a quoted macro argument (the quotes are the caller's). -->
	<xsl:template name="arg">
		<xsl:param name="s"/>
		<xsl:variable name="e">
			<xsl:call-template name="esc">
				<xsl:with-param name="s" select="$s"/>
			</xsl:call-template>
		</xsl:variable>
		<xsl:call-template name="replace">
			<xsl:with-param name="s" select="$e"/>
			<xsl:with-param name="from" select="'&quot;'"/>
			<xsl:with-param name="to" select="'\(dq'"/>
		</xsl:call-template>
	</xsl:template>

	<!-- One text line: s escaped; \& before a leading dot, which would
	     make it a request (a leading apostrophe is already \(aq). -->
	<xsl:template name="line">
		<xsl:param name="s"/>
		<xsl:if test="starts-with($s, '.')">\&amp;</xsl:if>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="$s"/>
		</xsl:call-template>
		<xsl:value-of select="$nl"/>
	</xsl:template>

	<!-- A description: each non-blank line of s is a paragraph, its blanks
	     collapsed; sep (.PP, .IP) goes between paragraphs. -->
	<xsl:template name="paras">
		<xsl:param name="s"/>
		<xsl:param name="sep"/>
		<xsl:param name="first" select="true()"/>
		<xsl:variable name="head">
			<xsl:choose>
				<xsl:when test="contains($s, $nl)">
					<xsl:value-of select="normalize-space(substring-before($s, $nl))"/>
				</xsl:when>
				<xsl:otherwise>
					<xsl:value-of select="normalize-space($s)"/>
				</xsl:otherwise>
			</xsl:choose>
		</xsl:variable>
		<xsl:if test="$head != ''">
			<xsl:if test="not($first)">
				<xsl:value-of select="concat($sep, $nl)"/>
			</xsl:if>
			<xsl:call-template name="line">
				<xsl:with-param name="s" select="$head"/>
			</xsl:call-template>
		</xsl:if>
		<xsl:if test="contains($s, $nl)">
			<xsl:call-template name="paras">
				<xsl:with-param name="s" select="substring-after($s, $nl)"/>
				<xsl:with-param name="sep" select="$sep"/>
				<xsl:with-param name="first" select="$first and $head = ''"/>
			</xsl:call-template>
		</xsl:if>
	</xsl:template>

	<!-- \fBs\fR, escaped. -->
	<xsl:template name="bold">
		<xsl:param name="s"/>
		<xsl:text>\fB</xsl:text>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="$s"/>
		</xsl:call-template>
		<xsl:text>\fR</xsl:text>
	</xsl:template>

	<xsl:template match="/">
		<xsl:if test="not($ra) or $name = ''">
			<xsl:message terminate="yes">ra2man.xsl: not an OCF resource agent's meta-data (no resource-agent name)</xsl:message>
		</xsl:if>
		<xsl:apply-templates select="$extra/example/param" mode="check"/>
		<xsl:apply-templates select="$ra/parameters/parameter[@required = '1']" mode="check"/>
		<xsl:call-template name="header"/>
		<xsl:call-template name="synopsis"/>
		<xsl:text>.SH DESCRIPTION&#10;</xsl:text>
		<xsl:call-template name="paras">
			<xsl:with-param name="s" select="$ra/longdesc"/>
			<xsl:with-param name="sep" select="'.PP'"/>
		</xsl:call-template>
		<xsl:text>.PP&#10;This page is made from the agent's own description (</xsl:text>
		<xsl:call-template name="bold">
			<xsl:with-param name="s" select="concat($name, ' meta-data')"/>
		</xsl:call-template>
		<xsl:text>, OCF resource agent API </xsl:text>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="normalize-space($ra/version)"/>
		</xsl:call-template>
		<xsl:text>) when cpha is built.&#10;</xsl:text>
		<xsl:call-template name="parameters"/>
		<xsl:call-template name="actions"/>
		<xsl:call-template name="example"/>
		<xsl:call-template name="see-also"/>
	</xsl:template>

	<!-- The example may only name the agent's parameters... -->
	<xsl:template match="param" mode="check">
		<xsl:if test="not($ra/parameters/parameter[@name = current()/@name])">
			<xsl:message terminate="yes">
				<xsl:value-of select="concat('ra2man.xsl: the example of ', $name, ' sets ', @name, ', which is not a parameter of the agent')"/>
			</xsl:message>
		</xsl:if>
	</xsl:template>

	<!-- ...and must set every required one. -->
	<xsl:template match="parameter" mode="check">
		<xsl:if test="$extra/example and not($extra/example/param[@name = current()/@name])">
			<xsl:message terminate="yes">
				<xsl:value-of select="concat('ra2man.xsl: the example of ', $name, ' lacks ', @name, ', which the agent requires')"/>
			</xsl:message>
		</xsl:if>
	</xsl:template>

	<xsl:template name="header">
		<xsl:variable name="upper" select="translate($page, 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')"/>
		<xsl:value-of select="concat('.\&quot; ', $page, '.7: made by ra2man.xsl from &quot;', $name, ' meta-data&quot;; do not edit.', $nl)"/>
		<xsl:text>.TH "</xsl:text>
		<xsl:call-template name="arg">
			<xsl:with-param name="s" select="$upper"/>
		</xsl:call-template>
		<xsl:text>" 7 "</xsl:text>
		<xsl:call-template name="arg">
			<xsl:with-param name="s" select="$date"/>
		</xsl:call-template>
		<xsl:text>" "</xsl:text>
		<xsl:call-template name="arg">
			<xsl:with-param name="s" select="normalize-space(concat($provider, ' ', $ra/@version))"/>
		</xsl:call-template>
		<xsl:text>" "</xsl:text>
		<!-- The header line holds TITLE(7) at both ends and this in the
		     middle: on a terminal of 80 columns (man's 78) a long title
		     leaves no room for it (groff would overprint). -->
		<xsl:if test="string-length($upper) &lt;= 24">OCF resource agents</xsl:if>
		<xsl:text>"&#10;</xsl:text>
		<!-- Paths, URLs and flags are long words: no hyphenation, a ragged
		     right margin rather than wide gaps. -->
		<xsl:text>.nh&#10;.ad l&#10;</xsl:text>
		<xsl:text>.SH NAME&#10;</xsl:text>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="$page"/>
		</xsl:call-template>
		<xsl:text> \- </xsl:text>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="normalize-space($ra/shortdesc)"/>
		</xsl:call-template>
		<xsl:value-of select="$nl"/>
	</xsl:template>

	<xsl:template name="synopsis">
		<xsl:text>.SH SYNOPSIS&#10;</xsl:text>
		<xsl:text>\fBpcs resource create\fR \fIid\fR </xsl:text>
		<xsl:call-template name="bold">
			<xsl:with-param name="s" select="concat('ocf:', $provider, ':', $name)"/>
		</xsl:call-template>
		<xsl:value-of select="$nl"/>
		<xsl:for-each select="$ra/parameters/parameter[@required = '1']">
			<xsl:call-template name="bold">
				<xsl:with-param name="s" select="concat(@name, '=')"/>
			</xsl:call-template>
			<xsl:text>\fI</xsl:text>
			<xsl:call-template name="esc">
				<xsl:with-param name="s" select="content/@type"/>
			</xsl:call-template>
			<xsl:text>\fR&#10;</xsl:text>
		</xsl:for-each>
		<xsl:text>[\fIparameter\fB=\fIvalue\fR ...]&#10;</xsl:text>
		<xsl:text>[\fBop\fR \fIaction\fR \fIoption\fB=\fIvalue\fR ...]&#10;</xsl:text>
		<xsl:text>.PP&#10;</xsl:text>
		<xsl:call-template name="bold">
			<xsl:with-param name="s" select="concat($ocfdir, '/', $name)"/>
		</xsl:call-template>
		<xsl:text>&#10;{</xsl:text>
		<xsl:for-each select="$ra/actions/action">
			<xsl:if test="position() != 1"> | </xsl:if>
			<xsl:call-template name="bold">
				<xsl:with-param name="s" select="@name"/>
			</xsl:call-template>
		</xsl:for-each>
		<xsl:text>}&#10;</xsl:text>
	</xsl:template>

	<xsl:template name="parameters">
		<xsl:text>.SH SUPPORTED PARAMETERS&#10;</xsl:text>
		<xsl:text>Pacemaker passes each parameter to the agent as the environment variable
\fBOCF_RESKEY_\fIname\fR.
A parameter marked unique must differ between two resources of this type.
</xsl:text>
		<xsl:choose>
			<xsl:when test="$ra/actions/action[@name = 'reload']">
				<xsl:text>A change of a unique parameter restarts the resource; a change of the others only
.BR reload s
it.
</xsl:text>
			</xsl:when>
			<xsl:otherwise>
				<xsl:text>A change of any parameter restarts the resource.
</xsl:text>
			</xsl:otherwise>
		</xsl:choose>
		<xsl:if test="not($ra/parameters/parameter)">
			<xsl:text>.PP&#10;The agent has no parameters.&#10;</xsl:text>
		</xsl:if>
		<xsl:apply-templates select="$ra/parameters/parameter"/>
	</xsl:template>

	<!-- .TP
	     \fBname\fR (type, required, unique, default \fIvalue\fR)
	     shortdesc
	     .IP
	     longdesc, a paragraph per line (when it says more than shortdesc) -->
	<xsl:template match="parameter">
		<xsl:variable name="short" select="normalize-space(shortdesc)"/>
		<xsl:text>.TP&#10;</xsl:text>
		<xsl:call-template name="bold">
			<xsl:with-param name="s" select="@name"/>
		</xsl:call-template>
		<xsl:text> (</xsl:text>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="content/@type"/>
		</xsl:call-template>
		<xsl:if test="@required = '1'">, required</xsl:if>
		<xsl:if test="@unique = '1'">, unique</xsl:if>
		<xsl:choose>
			<xsl:when test="content/@default = ''">, default ""</xsl:when>
			<xsl:when test="content/@default">
				<xsl:text>, default \fI</xsl:text>
				<xsl:call-template name="esc">
					<xsl:with-param name="s" select="content/@default"/>
				</xsl:call-template>
				<xsl:text>\fR</xsl:text>
			</xsl:when>
			<xsl:when test="@required != '1'">, no default</xsl:when>
		</xsl:choose>
		<xsl:text>)&#10;</xsl:text>
		<xsl:if test="$short != ''">
			<xsl:call-template name="line">
				<xsl:with-param name="s" select="$short"/>
			</xsl:call-template>
		</xsl:if>
		<xsl:if test="normalize-space(longdesc) != $short">
			<xsl:if test="$short != ''">
				<xsl:text>.IP&#10;</xsl:text>
			</xsl:if>
			<xsl:call-template name="paras">
				<xsl:with-param name="s" select="longdesc"/>
				<xsl:with-param name="sep" select="'.IP'"/>
			</xsl:call-template>
		</xsl:if>
	</xsl:template>

	<xsl:template name="actions">
		<xsl:text>.SH SUPPORTED ACTIONS&#10;</xsl:text>
		<xsl:text>The agent advises these timeouts and intervals.
.B pcs resource create
makes each action but
.BR meta\-data " and " validate\-all
an operation of the resource with these values (with
.BR \-\-no\-default\-ops ,
only the monitor);
\fBop\fR \fIaction\fR \fIoption\fB=\fIvalue\fR
on its command line overrides them.
</xsl:text>
		<xsl:apply-templates select="$ra/actions/action"/>
	</xsl:template>

	<xsl:template match="action">
		<xsl:text>.TP&#10;</xsl:text>
		<xsl:call-template name="bold">
			<xsl:with-param name="s" select="@name"/>
		</xsl:call-template>
		<xsl:value-of select="$nl"/>
		<xsl:choose>
			<xsl:when test="@name = 'start'">Starts the resource.</xsl:when>
			<xsl:when test="@name = 'stop'">Stops the resource.</xsl:when>
			<xsl:when test="@name = 'monitor'">Tells whether the resource runs (with interval 0: a probe).</xsl:when>
			<xsl:when test="@name = 'reload'">Applies changed parameters that are not unique, without a restart.</xsl:when>
			<xsl:when test="@name = 'notify'">Takes a clone's pre and post notifications (the clone needs notify=true).</xsl:when>
			<xsl:when test="@name = 'promote'">Makes this instance promoted.</xsl:when>
			<xsl:when test="@name = 'demote'">Makes this instance unpromoted.</xsl:when>
			<xsl:when test="@name = 'migrate_to' or @name = 'migrate_from'">Moves the resource live.</xsl:when>
			<xsl:when test="@name = 'validate-all'">Checks the parameters and changes nothing (pcs \-\-agent\-validation, crm_resource \-\-validate).</xsl:when>
			<xsl:when test="@name = 'meta-data'">Prints the XML description this page is made from.</xsl:when>
		</xsl:choose>
		<xsl:text>&#10;Timeout </xsl:text>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="@timeout"/>
		</xsl:call-template>
		<xsl:if test="@interval">
			<xsl:text>, interval </xsl:text>
			<xsl:call-template name="esc">
				<xsl:with-param name="s" select="@interval"/>
			</xsl:call-template>
		</xsl:if>
		<xsl:if test="@depth">
			<xsl:text>, depth </xsl:text>
			<xsl:call-template name="esc">
				<xsl:with-param name="s" select="@depth"/>
			</xsl:call-template>
		</xsl:if>
		<xsl:if test="@role">
			<xsl:text>, role </xsl:text>
			<xsl:call-template name="esc">
				<xsl:with-param name="s" select="@role"/>
			</xsl:call-template>
		</xsl:if>
		<xsl:text>.&#10;</xsl:text>
	</xsl:template>

	<!-- pages.xml: <example resource="ID"><intro>A paragraph</intro>...
	     <param name="P">VALUE</param>... <after>WORDS</after>...</example>:
	     one pcs command, a line per parameter and per <after>. Without
	     one: the command with the required parameters. -->
	<xsl:template name="example">
		<xsl:variable name="ex" select="$extra/example"/>
		<xsl:text>.SH EXAMPLE&#10;</xsl:text>
		<xsl:choose>
			<xsl:when test="$ex/intro">
				<xsl:for-each select="$ex/intro">
					<xsl:if test="position() != 1">.PP&#10;</xsl:if>
					<xsl:call-template name="line">
						<xsl:with-param name="s" select="normalize-space(.)"/>
					</xsl:call-template>
				</xsl:for-each>
			</xsl:when>
			<xsl:otherwise>
				<xsl:text>A resource with the required parameters and the agent's defaults for the rest:&#10;</xsl:text>
			</xsl:otherwise>
		</xsl:choose>
		<xsl:text>.PP&#10;.RS 4&#10;.nf&#10;</xsl:text>
		<xsl:variable name="id">
			<xsl:choose>
				<xsl:when test="$ex/@resource">
					<xsl:value-of select="$ex/@resource"/>
				</xsl:when>
				<xsl:otherwise>
					<xsl:value-of select="$name"/>
				</xsl:otherwise>
			</xsl:choose>
		</xsl:variable>
		<xsl:call-template name="esc">
			<xsl:with-param name="s" select="concat('pcs resource create ', $id, ' ocf:', $provider, ':', $name)"/>
		</xsl:call-template>
		<xsl:choose>
			<xsl:when test="$ex">
				<xsl:for-each select="$ex/param | $ex/after">
					<xsl:text> \e&#10;    </xsl:text>
					<xsl:call-template name="esc">
						<xsl:with-param name="s">
							<xsl:if test="self::param">
								<xsl:value-of select="concat(@name, '=')"/>
							</xsl:if>
							<xsl:value-of select="normalize-space(.)"/>
						</xsl:with-param>
					</xsl:call-template>
				</xsl:for-each>
			</xsl:when>
			<xsl:otherwise>
				<xsl:for-each select="$ra/parameters/parameter[@required = '1']">
					<xsl:text> \e&#10;    </xsl:text>
					<xsl:call-template name="esc">
						<xsl:with-param name="s" select="concat(@name, '=')"/>
					</xsl:call-template>
					<xsl:text>\fI</xsl:text>
					<xsl:call-template name="esc">
						<xsl:with-param name="s" select="content/@type"/>
					</xsl:call-template>
					<xsl:text>\fR</xsl:text>
				</xsl:for-each>
			</xsl:otherwise>
		</xsl:choose>
		<xsl:text>&#10;.fi&#10;.RE&#10;</xsl:text>
	</xsl:template>

	<!-- The provider's other agents, pages.xml's entries, then Pacemaker's. -->
	<xsl:template name="see-also">
		<xsl:text>.SH SEE ALSO&#10;</xsl:text>
		<xsl:call-template name="see-agents">
			<xsl:with-param name="list" select="concat(normalize-space($agents), ' ')"/>
		</xsl:call-template>
		<xsl:for-each select="$extra/see">
			<xsl:text>.BR </xsl:text>
			<xsl:call-template name="arg">
				<xsl:with-param name="s" select="@page"/>
			</xsl:call-template>
			<xsl:text> (</xsl:text>
			<xsl:call-template name="arg">
				<xsl:with-param name="s" select="@section"/>
			</xsl:call-template>
			<xsl:text>),&#10;</xsl:text>
		</xsl:for-each>
		<xsl:text>.BR cpha (1),
.BR pcs (8),
.BR crm_resource (8),
.BR crm_mon (8),
.BR ocf\-tester (8);
Pacemaker Explained, "Resource Agents" and "OCF Return Codes".
</xsl:text>
	</xsl:template>

	<xsl:template name="see-agents">
		<xsl:param name="list"/>
		<xsl:variable name="a" select="substring-before($list, ' ')"/>
		<xsl:if test="$a != '' and $a != $name">
			<xsl:text>.BR </xsl:text>
			<xsl:call-template name="arg">
				<xsl:with-param name="s" select="concat('ocf_', $provider, '_', $a)"/>
			</xsl:call-template>
			<xsl:text> (7),&#10;</xsl:text>
		</xsl:if>
		<xsl:if test="contains(substring-after($list, ' '), ' ')">
			<xsl:call-template name="see-agents">
				<xsl:with-param name="list" select="substring-after($list, ' ')"/>
			</xsl:call-template>
		</xsl:if>
	</xsl:template>
</xsl:stylesheet>
