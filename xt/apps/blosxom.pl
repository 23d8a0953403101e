# Blosxom 2.1: a weblog in one script, entries are text files; path info
# selects dates and categories, ?flav= the flavour (html, rss); templates
# in __DATA__ of its own package.
my $REPO = 'nickleverton/blosxom';
{
    source  => "github:$REPO blosxom.cgi",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/blosxom.cgi", edit(mirror_file($REPO, 'blosxom.cgi'),
            qr{\$datadir = "[^"]*";} => qq{\$datadir = "$l->{final_data}";},
            qr{\$blog_title = "[^"]*";} => '$blog_title = "xt apps weblog";'), 0755);
        my $t = 1_600_000_000;    # entries' dates are their files' mtimes
        for (['first.txt', "The first entry\n<p>Hello, <b>world</b>.</p>\n"],
             ['cooking/soup.txt', "Soup\n<p>Water, leeks, salt.</p>\n"],
             ['cooking/bread.txt', "Bread\n<p>Flour &amp; water.</p>\n"]) {
            put("$l->{data}/$_->[0]", $_->[1]);
            utime $t, $t, "$l->{data}/$_->[0]";
            $t += 86400 * 40;
        }
    },
    session => [
        { user => 'alice', get => '/cgi-bin/blosxom/blosxom.cgi' },
        { user => 'bob',   get => '/cgi-bin/blosxom/blosxom.cgi/cooking/' },
        { user => 'alice', get => '/cgi-bin/blosxom/blosxom.cgi/2020/09?flav=rss' },
        { user => 'bob',   get => '/cgi-bin/blosxom/blosxom.cgi/cooking/soup.html' },
        { user => 'carol', get => '/cgi-bin/blosxom/blosxom.cgi/index.rss' },
        { user => 'carol', get => '/cgi-bin/blosxom/blosxom.cgi/no/such/thing' },
    ],
};
