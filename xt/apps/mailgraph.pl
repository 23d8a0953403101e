# mailgraph.cgi 1.14 (Debian mailgraph): postfix statistics pages over RRD
# files (RRDs), file lexicals (the script's name from %ENV) used by named
# subs, the page and its error.
my $SCRIPT = '/usr/share/mailgraph/mailgraph.cgi';
{
    source  => 'Debian mailgraph',
    missing => sub { deb_missing('mailgraph', $SCRIPT) },
    layout  => sub {
        my ($l) = @_;
        put(
            "$l->{dir}/mailgraph.cgi",
            edit(
                mirror_text_file($SCRIPT),
                qr{'/var/lib/mailgraph/mailgraph.rrd'} => "'$l->{final_data}/mailgraph.rrd'",
                qr{'/var/lib/mailgraph/mailgraph_virus.rrd'} => "'$l->{final_data}/mailgraph_virus.rrd'",
                qr{'/var/lib/mailgraph/mailgraph_greylist.rrd'} => "'$l->{final_data}/mailgraph_greylist.rrd'",
                qr{my \$tmp_dir = '/var/lib/mailgraph';} => "my \$tmp_dir = '$l->{final_data}/tmp';"
            ),
            0755
        );
    },
    session => [
        { user => 'alice', get => '/cgi-bin/mailgraph/mailgraph.cgi' },
        { user => 'bob',   get => '/cgi-bin/mailgraph/mailgraph.cgi?bogus{pass}' },
        { user => 'carol', get => '/cgi-bin/mailgraph/mailgraph.cgi/extra/path' },
        { user => 'alice', get => '/cgi-bin/mailgraph/mailgraph.cgi?' },
    ],
};
