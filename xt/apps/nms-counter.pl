# nms TextCounter (counter.pl): a taint-mode (-Tw) SSI hit counter, a
# count file per page under a relative ./data/ directory, flock, file
# lexicals read by named subs, the date it was created.
my $REPO = 'davorg/nms-cgi';
{
    source  => "github:$REPO textcounter/counter.pl",
    missing => sub { mirror_missing($REPO) },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/counter.pl", mirror_file($REPO, 'textcounter/counter.pl'), 0755);
        put("$l->{dir}/data/.keep", '');
    },
    session => [
        { user => 'alice', get => '/cgi-bin/nms-counter/counter.pl' },
        { user => 'bob',   get => '/cgi-bin/nms-counter/counter.pl' },
        { user => 'alice', get => '/cgi-bin/nms-counter/counter.pl?x={pass}' },
        { user => 'carol', get => '/cgi-bin/nms-counter/counter.pl', headers => { Host => 'other.example' } },
    ],
};
