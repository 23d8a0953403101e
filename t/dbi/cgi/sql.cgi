#!/usr/bin/perl
# A legacy-style script for t/dbi: connects on every request, says which
# server connection it got (KT_ID_SQL) and in which process, runs the
# statements of its query string (q=...), one output line per row.
# ac=0: connect with AutoCommit off; cached=1: connect_cached; begin=1: begin_work first;
# set=NAME:VALUE: a handle attribute set after connecting; disconnect=1;
# fork=1: a child connects too and says which connection it got; ppid=1:
# the parent process is named too; sleep=N: sleeps N seconds at the end;
# bg=N: leaves a process behind that sleeps N seconds, its output closed.
use strict;
use warnings;
use DBI;

$| = 1;    # (nothing buffered to be copied into a child)

my (%opt, @sql);
for (split /&/, $ENV{QUERY_STRING} // '') {
    my ($k, $v) = map { s/\+/ /gr =~ s/%([0-9A-Fa-f]{2})/chr hex $1/ger } split /=/, $_, 2;
    if ($k eq 'q') { push @sql, $v } else { $opt{$k} = $v }
}
my $connect = $opt{cached} ? 'connect_cached' : 'connect';
my $dbh = DBI->$connect($ENV{KT_DSN}, $ENV{KT_USER}, $ENV{KT_PASS},
    { RaiseError => 1, PrintError => 0, AutoCommit => $opt{ac} // 1 });
my ($id) = $dbh->selectrow_array($ENV{KT_ID_SQL});
print "Content-Type: text/plain\n\n";
print "id=$id pid=$$", ($opt{ppid} ? ' ppid=' . getppid() : ''), "\n";
if ($opt{set}) {
    my ($name, $value) = split /:/, $opt{set}, 2;
    $dbh->{$name} = $value;
}
$dbh->begin_work if $opt{begin};
for my $sql (@sql) {
    my $sth = $dbh->prepare($sql);
    $sth->execute;
    next unless $sth->{NUM_OF_FIELDS};
    print join(',', map { $_ // 'NULL' } @$_), "\n" for @{ $sth->fetchall_arrayref };
}
if ($opt{fork}) {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        my $own = DBI->connect($ENV{KT_DSN}, $ENV{KT_USER}, $ENV{KT_PASS}, { RaiseError => 1, PrintError => 0 });
        my ($child_id) = $own->selectrow_array($ENV{KT_ID_SQL});
        print "child=$child_id\n";
        exit 0;
    }
    waitpid $pid, 0;
    print "after-child=", $dbh->selectrow_array($ENV{KT_ID_SQL}), "\n";
}
$dbh->disconnect if $opt{disconnect};
sleep $opt{sleep} if $opt{sleep};
if ($opt{bg} && !fork) {
    close $_ for *STDIN, *STDOUT, *STDERR;
    sleep $opt{bg};
    require POSIX;
    POSIX::_exit(0);
}
1;
