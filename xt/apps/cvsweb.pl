# cvsweb 3.0.6 (Debian's, installed without an extension as
# /usr/lib/cgi-bin/cvsweb): browses an RCS/CVS repository through rlog, co
# and rcsdiff, cvsweb.conf read from the script's directory, path-info
# URLs, a cookie for the sort order. Laid out as cvsweb.cgi: Kamado takes
# only files with a script extension as scripts.
my $SCRIPT = '/usr/lib/cgi-bin/cvsweb';
{
    source  => 'Debian cvsweb',
    missing => sub { deb_missing('cvsweb', $SCRIPT, '/etc/cvsweb/cvsweb.conf', '/usr/bin/rlog') },
    layout  => sub {
        my ($l) = @_;
        put("$l->{dir}/cvsweb.cgi", mirror_text_file($SCRIPT), 0755);
        put("$l->{dir}/cvsweb.conf", edit(mirror_text_file('/etc/cvsweb/cvsweb.conf'),
            qr{'local'\s*=> \['Local Repository', '/var/lib/cvs'\],} => "'local' => ['Local Repository', '$l->{final_data}/cvsroot'],"));
        my $work = "$l->{data}/../cvsweb-work";
        mkdir $_ for $work, "$l->{data}/cvsroot", "$l->{data}/cvsroot/CVSROOT", "$l->{data}/cvsroot/demo";
        my @days = ('2020-09-13 12:00:00', '2020-09-14 13:30:00', '2020-09-15 09:15:00');
        for my $i (1 .. 3) {
            for my $f ('hello.c', 'README') {
                put("$work/$f", $f eq 'README' ? "Demo\n" . join('', map { "note $_\n" } 1 .. $i)
                                               : "#include <stdio.h>\nint main(void) { puts(\"hello $i\"); return 0; }\n");
                system("cd '$work' && ci -q -l -d'$days[$i-1]' -walice -m'revision $i of $f' -t-'the $f file' $f") == 0
                    or die "ci failed\n";
            }
        }
        system("mv '$work'/*,v '$l->{data}/cvsroot/demo/' && rm -rf '$work'") == 0 or die "mv failed\n";
    },
    session => [
        { user => 'alice', get => '/cgi-bin/cvsweb/cvsweb.cgi/' },
        { user => 'bob',   get => '/cgi-bin/cvsweb/cvsweb.cgi/demo/' },
        { user => 'alice', get => '/cgi-bin/cvsweb/cvsweb.cgi/demo/hello.c' },
        { user => 'carol', get => '/cgi-bin/cvsweb/cvsweb.cgi/demo/hello.c?rev=1.2' },
        { user => 'bob',   get => '/cgi-bin/cvsweb/cvsweb.cgi/demo/hello.c.diff?r1=1.1;r2=1.3' },
        { user => 'alice', get => '/cgi-bin/cvsweb/cvsweb.cgi/demo/?sortby=date' },
        { user => 'carol', get => '/cgi-bin/cvsweb/cvsweb.cgi/demo/README?annotate=1.3' },
        { user => 'bob',   get => '/cgi-bin/cvsweb/cvsweb.cgi/nosuchdir/' },
    ],
};
