# nms Free For All Links (ffa.pl): a taint-mode (-wT) link page, file
# lexicals used by named subs, a lock file, a page rewritten through a
# temporary file and rename, a database file appended, mail piped to
# sendmail (a stand-in), redirects.
my $REPO = 'davorg/nms-cgi';
{
    source  => "github:$REPO ffa/ffa.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put(
            "$l->{dir}/ffa.pl",
            edit(
                mirror_file($REPO, 'ffa/ffa.pl'),
                qr{my \$directory  = '[^']*';} => "my \$directory  = '$l->{final_data}';",
                qr{my \$linksurl          = "[^"]*";} => 'my $linksurl          = "http://localhost/links/links.html";',
                qr{my \$mailer       = '[^']*';} => "my \$mailer       = '$l->{final_data}/sendmail -t -oi';"
            ),
            0755
        );
        put(
            "$l->{data}/links.html",
            "<html><head><title>Links</title></head><body>\n<!--number--><b>There are <i>0</i> links.</b><br />\n"
                . "<!--time--><b>No link yet</b><hr />\n"
                . join('', map { "<h2>$_</h2>\n<ul>\n<!--$_-->\n</ul>\n" } qw(busi comp educ ente gove pers misc))
                . "</body></html>\n"
        );
        put(
            "$l->{data}/sendmail", "#!/bin/sh\n{ echo \"=== sendmail \$*\"; cat; } >> '$l->{final_data}/mail.out'\n",
            0755
        );
    },
    session => [
        { user => 'alice', get => '/cgi-bin/nms-ffa/ffa.pl' },
        {
            user => 'alice', post => '/cgi-bin/nms-ffa/ffa.pl',
            form => [url => 'http://example.org/{pass}', title => 'Example {pass}', section => 'Computers']
        },
        {
            user => 'bob', post => '/cgi-bin/nms-ffa/ffa.pl',
            form => [url => 'http://example.com/bob{pass}', title => 'Bob <&> {pass}']
        },
        {
            user => 'carol', post => '/cgi-bin/nms-ffa/ffa.pl',
            form => [url => 'http://example.org/1', title => 'Again', section => 'Personal']
        },
        { user => 'dave', post => '/cgi-bin/nms-ffa/ffa.pl', form => [url => 'ftp:/bad', title => 'Bad url'] },
        { user => 'erin', post => '/cgi-bin/nms-ffa/ffa.pl', form => [url => 'http://example.net/', title => ''] },
    ],
};
