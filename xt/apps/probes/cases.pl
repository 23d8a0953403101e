# xt/apps/probes/cases.pl -- scripts written to the edges of
# doc/CGI-HAZARDS.md, for `xt/apps/truth --no-apps --fixtures
# xt/apps/probes`: each is run as plain CGI (exec mode) and in each faster
# mode, and its verdict must never be faster than what runs it byte for
# byte as plain CGI. p2, p3, p7, p8, p9, p11, q25, q26 and q27 were false
# "safe" verdicts before kamado check learnt their hazards; the others are
# hazards Kamado's in-process modes neutralise. Same format as
# t/cgi/cases.pl; the requests vary so that state leaking from one request
# into the next shows.
my @requests = (
    { method => 'GET', query => 'who=alice' },
    { method => 'GET', query => 'who=bob&desc=1' },
    { method => 'GET', query => 'one+two' },
);
(
    map { { script => $_, compare => 'exact', requests => \@requests } }
        qw(p1-bare-block.cgi p2-begin-closure.cgi p3-require-prints.cgi p4-argv-isindex.cgi p5-destroy.cgi
        p6-hash-order.cgi p7-match-once.cgi p8-flip-flop.cgi p9-autoload.cgi p10-sort-sub-name.cgi
        p11-nested-sub.cgi q20-module-lexical.cgi q25-autoload-install.cgi q26-glob-assign-closure.cgi
        q27-sub-defined-check.cgi q28-local-time-cache.cgi q29-data-in-sub.cgi q30-package-sub-closure.cgi)
);
