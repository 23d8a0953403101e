# nms guestbook.pl 1.51 (2006): a taint-mode (-wT) guestbook, CGI.pm,
# `use vars` globals set in a BEGIN block, its own fatalsToBrowser as a
# BEGIN-time $SIG{__DIE__}, entries spliced into a static HTML file under
# flock, a log file, `exit` from the error form.
my $REPO = 'davorg/nms-cgi';
{
    source  => "github:$REPO guestbook/guestbook.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put(
            "$l->{dir}/guestbook.pl",
            edit(
                mirror_file($REPO, 'guestbook/guestbook.pl'),
                qr{\$guestbookurl  = '[^']*';} => "\$guestbookurl  = 'http://localhost/guestbook.html';",
                qr{\$guestbookreal = '[^']*';} => "\$guestbookreal = '$l->{final_data}/guestbook.html';",
                qr{\$guestlog      = '[^']*';} => "\$guestlog      = '$l->{final_data}/guestlog.html';",
                qr{\$cgiurl        = '[^']*';} => "\$cgiurl        = 'http://localhost$l->{url}/guestbook.pl';"
            ),
            0755
        );
        put(
            "$l->{data}/guestbook.html",
            "<html><head><title>Guestbook</title></head><body>\n<h1>Guestbook</h1>\n<!--begin-->\n</body></html>\n"
        );
        put("$l->{data}/guestlog.html", "<html><head><title>Guestbook log</title></head><body>\n</body></html>\n");
    },
    session => [
        { user => 'alice', get => '/cgi-bin/nms-guestbook/guestbook.pl' },
        {
            user => 'alice', post => '/cgi-bin/nms-guestbook/guestbook.pl',
            form => [
                realname => 'Alice', username => 'alice@example.org', url => 'http://example.org/alice',
                city => 'Paris', state => 'IDF', country => 'France', comments => "Hello, pass {pass}!\nSecond line."
            ]
        },
        {
            user => 'bob', post => '/cgi-bin/nms-guestbook/guestbook.pl',
            form => [realname => '', comments => 'Nameless {pass}']
        },
        {
            user => 'carol', post => '/cgi-bin/nms-guestbook/guestbook.pl',
            multipart =>
                [realname => 'Carol <c>', comments => '<b>bold</b> & "quoted" {pass}', username => 'not-an-address']
        },
        {
            user => 'bob', post => '/cgi-bin/nms-guestbook/guestbook.pl',
            form => [realname => 'Bob', comments => 'Bob&#39;s %41 {pass}', encoded_comments => 1]
        },
    ],
};
