# UseModWiki 1.0.x (wiki.pl): one script, use strict with hundreds of
# package globals, CGI.pm, CGI::Carp fatalsToBrowser, a flat-file page
# database with locks, diffs through `diff`, redirects after saving.
my $REPO = 'nomis/UseModWiki';
{
    source  => "github:$REPO wiki.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/wiki.pl", edit(mirror_file($REPO, 'wiki.pl'),
            qr{\$DataDir\s*= "/tmp/mywikidb";} => "\$DataDir = '$l->{final_data}/db';"), 0755);
        mkdir "$l->{data}/db";
    },
    # its page files keep times as epoch seconds right after a field
    # separator, "\xb3" and a digit: the generic rule cannot see them
    normalise => [ sub { $_[0] =~ s/(\xb3[1-3])1[0-9]{9}(?![0-9])/$1<EPOCH>/gr } ],
    session => [
        { user => 'alice', get => '/cgi-bin/usemodwiki/wiki.pl' },
        { user => 'alice', get => '/cgi-bin/usemodwiki/wiki.pl?action=edit&id=SandBox' },
        { user => 'alice', post => '/cgi-bin/usemodwiki/wiki.pl',
          form => [title => 'SandBox', text => "Hello from alice, pass {pass}.\n\nSee HomePage and NewPage{pass}.\n",
                   oldtime => hidden('oldtime'), oldconflict => hidden('oldconflict'), summary => 'alice {pass}'] },
        { user => 'bob',   get => '/cgi-bin/usemodwiki/wiki.pl?action=edit&id=SandBox' },
        { user => 'bob',   post => '/cgi-bin/usemodwiki/wiki.pl',
          form => [title => 'SandBox', text => "Bob was here, pass {pass}.\n* one\n* two\n",
                   oldtime => hidden('oldtime'), oldconflict => hidden('oldconflict'), summary => 'bob {pass}'] },
        { user => 'carol', get => '/cgi-bin/usemodwiki/wiki.pl?SandBox' },
        { user => 'carol', get => '/cgi-bin/usemodwiki/wiki.pl?action=history&id=SandBox' },
        { user => 'alice', get => '/cgi-bin/usemodwiki/wiki.pl?action=browse&diff=1&id=SandBox' },
        { user => 'bob',   get => '/cgi-bin/usemodwiki/wiki.pl?RecentChanges' },
        { user => 'carol', get => '/cgi-bin/usemodwiki/wiki.pl?action=index' },
        { user => 'carol', get => '/cgi-bin/usemodwiki/wiki.pl?search=alice' },
    ],
};
