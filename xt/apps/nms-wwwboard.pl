# nms WWWBoard 1.29 (wwwboard.pl): a taint-mode (-Tw) threaded message
# board, `use vars` configuration in a BEGIN block, messages as static HTML
# files and a counter file under flock, follow-ups rewriting earlier pages.
my $REPO = 'davorg/nms-cgi';
{
    source  => "github:$REPO wwwboard/wwwboard.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put(
            "$l->{dir}/wwwboard.pl",
            edit(
                mirror_file($REPO, 'wwwboard/wwwboard.pl'),
                qr{\$basedir            = '[^']*';} => "\$basedir            = '$l->{final_data}';",
                qr{\$baseurl            = '[^']*';} => "\$baseurl            = 'http://localhost/wwwboard';",
                qr{\$cgi_url            = '[^']*';} => "\$cgi_url            = 'http://localhost$l->{url}/wwwboard.pl';"
            ),
            0755
        );
        put("$l->{data}/data.txt", "0\n");
        put(
            "$l->{data}/wwwboard.html",
            "<html><head><title>Board</title></head><body>\n<ul>\n<!--begin-->\n</ul>\n</body></html>\n"
        );
        put("$l->{data}/messages/.keep", '');
    },
    session => [
        { user => 'alice', get => '/cgi-bin/nms-wwwboard/wwwboard.pl' },
        {
            user => 'alice', post => '/cgi-bin/nms-wwwboard/wwwboard.pl',
            form => [
                name => 'Alice', email => 'alice@example.org', subject => 'First post {pass}',
                body => "Hello board.\n\nParagraph two."
            ]
        },
        {
            user => 'bob', post => '/cgi-bin/nms-wwwboard/wwwboard.pl',
            form => [
                name => 'Bob', email => '', subject => 'Re: First post {pass}', body => "A reply\n: quoted",
                followup => sub { $_[1] == 1 ? 1 : 3 }, origname => 'Alice', origsubject => 'First post {pass}',
                origemail => 'alice@example.org',
                url => 'http://example.org/', url_title => 'Example'
            ]
        },
        {
            user => 'carol', post => '/cgi-bin/nms-wwwboard/wwwboard.pl',
            form => [name => 'Carol', subject => '', body => 'no subject']
        },
        {
            user => 'dave', post => '/cgi-bin/nms-wwwboard/wwwboard.pl',
            multipart => [
                name => 'Dave', email => 'dave@example', subject => 'Images <b>{pass}</b>', body => '<i>html</i> body',
                img => 'http://example.org/x.png'
            ]
        },
    ],
};
