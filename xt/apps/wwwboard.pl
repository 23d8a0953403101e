# Matt Wright's WWWBoard 2.0 ALPHA 2 (1996), as one site deployed it (its
# paths take the query string as a sub-board): no strict, every variable a
# package global, its own form parser filling %FORM (never emptied), a
# counter file, message pages rewritten on each follow-up, `exit` from the
# preview and error pages.
my $REPO = 'EricGregMiller/qhst';
my $REV = 'ca26049600cb9e25a070e3e3f7be1b9d52ec1c50';    # cgi-bin/wwwboard.pl is gone from later commits
{
    source  => "github:$REPO cgi-bin/wwwboard.pl (at ca26049)",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put(
            "$l->{dir}/wwwboard.pl",
            edit(
                mirror_file($REPO, 'cgi-bin/wwwboard.pl', $REV),
                qr{\$basedir = "[^"]*"} => "\$basedir = \"$l->{final_data}/\"",
                qr{\$baseurl = "[^"]*"} => '$baseurl = "http://localhost/wwwboard/"',
                qr{\$cgi_url = "[^"]*"} => "\$cgi_url = \"http://localhost$l->{url}/wwwboard.pl?\""
            ),
            0755
        );
        put("$l->{data}/data.txt", "0");
        put(
            "$l->{data}/index.html",
            "<html><head><title>Board</title></head><body>\n<ul>\n<!--begin-->\n</ul>\n</body></html>\n"
        );
        put("$l->{data}/messages/.keep", '');
    },
    session => [
        {
            user => 'alice', post => '/cgi-bin/wwwboard/wwwboard.pl',
            form => [
                name => 'Alice', email => 'alice@example.org', subject => 'Hello {pass}',
                body => "First line\n\nSecond paragraph"
            ]
        },
        {
            user => 'alice', post => '/cgi-bin/wwwboard/wwwboard.pl',
            form => [
                action => 'post', name => 'Alice', email => 'alice@example.org', subject => 'Hello {pass}',
                body => "First line\n\nSecond paragraph"
            ]
        },
        {
            user => 'bob', post => '/cgi-bin/wwwboard/wwwboard.pl',
            form => [
                action => 'post', name => 'Bob "B"', subject => 'Re: Hello {pass}', body => 'A reply',
                followup => sub { $_[1] == 1 ? 1 : 4 },
                origname => 'Alice', origsubject => 'Hello {pass}', origdate => 'today', url => 'http://example.org/',
                url_title => 'Ex'
            ]
        },
        {
            user => 'carol', post => '/cgi-bin/wwwboard/wwwboard.pl',
            form => [action => 'post', subject => 'No name', body => 'x']
        },
        {
            user => 'dave', post => '/cgi-bin/wwwboard/wwwboard.pl',
            form => [action => 'post', name => 'Dave', subject => 'Top level {pass}', body => 'new thread']
        },
        {
            user => 'erin', post => '/cgi-bin/wwwboard/wwwboard.pl',
            form => [name => 'Erin', subject => 'Preview only', body => '<b>hi</b>']
        },
    ],
};
