# Oddmuse (wiki.pl): a large single-script wiki (use strict, `our`
# globals, CGI.pm, utf8), a page directory with locks and a visitor log,
# cookies for the user name, file uploads (multipart), redirects.
my $REPO = 'kensanata/oddmuse';
{
    source  => "github:$REPO wiki.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/wiki.pl", edit(mirror_file($REPO, 'wiki.pl'),
            qr{\$DataDir\s*\|\|= '/tmp/oddmuse';} => "\$DataDir ||= '$l->{final_data}/wiki';"), 0755);
        # the site's config: every request comes from 127.0.0.1 at the
        # harness's pace, which surge protection would refuse
        put("$l->{data}/wiki/config", "\$SurgeProtection = 0;\n\$UploadAllowed = 1;\n\@UploadTypes = ('text/plain', 'image/png');\n");
    },
    session => [
        { user => 'alice', get => '/cgi-bin/oddmuse/wiki.pl' },
        { user => 'alice', get => '/cgi-bin/oddmuse/wiki.pl?action=edit;id=Sand_Box' },
        { user => 'alice', post => '/cgi-bin/oddmuse/wiki.pl',
          form => [title => 'Sand_Box', text => "Hello from Alice, pass {pass}. See [[Home Page]].\n", summary => 'alice {pass}',
                   username => 'AliceA', oldtime => hidden('oldtime')] },
        { user => 'bob', post => '/cgi-bin/oddmuse/wiki.pl',
          multipart => [title => 'Notes_{pass}', file => { filename => 'notes.txt', type => 'text/plain', content => "plain notes {pass}\n" },
                        summary => 'upload', username => 'BobB'] },
        { user => 'bob', get => '/cgi-bin/oddmuse/wiki.pl/Sand_Box' },
        { user => 'carol', post => '/cgi-bin/oddmuse/wiki.pl',
          form => [title => 'Sand_Box', aftertext => 'A comment from Carol.', username => 'CarolC'] },
        { user => 'alice', get => '/cgi-bin/oddmuse/wiki.pl?action=history;id=Sand_Box' },
        { user => 'carol', get => '/cgi-bin/oddmuse/wiki.pl?action=rc;all=1;showedit=1' },
        { user => 'bob', get => '/cgi-bin/oddmuse/wiki.pl?search=alice' },
        { user => 'alice', get => '/cgi-bin/oddmuse/wiki.pl?action=index' },
        { user => 'carol', get => '/cgi-bin/oddmuse/wiki.pl/Sand_Box?diff=1' },
    ],
};
