# Matt Wright's Simple Search 1.0 (1996): a POSTed form, package globals
# everywhere, chdir to the documents, `ls` through backticks, one page of
# results.
my $REPO = 'EricGregMiller/qhst';
{
    source  => "github:$REPO search.cgi",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        # (the snapshot has CRLF lines: "#!/usr/bin/perl\r" is a 500 under Apache;
        # converted as an administrator would)
        put("$l->{dir}/search.cgi", edit(mirror_file($REPO, 'search.cgi') =~ s/\r+\n/\n/gr,
            qr{\$basedir = '[^']*';} => "\$basedir = '$l->{final_data}/';",
            qr{\$baseurl = '[^']*';} => "\$baseurl = 'http://localhost/docs/';",
            qr{\@files = \([^)]*\);} => "\@files = ('*.html', 'sub/*.html');"), 0755);
        put("$l->{data}/leeks.html", "<html><head><title>Leeks</title></head><body>Leeks and potatoes make soup.</body></html>\n");
        put("$l->{data}/bread.html", "<html><head><title>Bread</title></head><body>Flour, water, salt and time.</body></html>\n");
        put("$l->{data}/sub/soup.html", "<html><head><title>Soup of the day</title></head><body>Leek soup, bread.</body></html>\n");
    },
    session => [
        { user => 'alice', post => '/cgi-bin/simple-search/search.cgi', form => [terms => 'leek', boolean => 'AND', case => 'Insensitive'] },
        { user => 'bob',   post => '/cgi-bin/simple-search/search.cgi', form => [terms => 'Bread soup', boolean => 'OR', case => 'Sensitive'] },
        { user => 'alice', post => '/cgi-bin/simple-search/search.cgi', form => [terms => 'water salt', boolean => 'AND', case => 'Insensitive'] },
        { user => 'bob',   post => '/cgi-bin/simple-search/search.cgi', form => [terms => 'nothing', boolean => 'AND', case => 'Insensitive'] },
    ],
};
